/**
 * IPA to eSpeak NG's phoneme mnemonics, the `[[…]]` input eSpeak speaks as written. Mnemonics
 * differ between languages (French `r` is /ʁ/, Spanish `r` is /ɾ/), so the conversion uses the
 * voice's own inventory: each of its phonemes with the IPA eSpeak reports for it (read by the
 * worker from eSpeak's phoneme tables).
 */

export interface EspeakPhoneme {
  mnemonic: string;
  /** The IPA eSpeak reports when it speaks this phoneme (stress marks included for vowels). */
  ipa: string;
}

const STRESS: Record<string, string> = { ˈ: "'", ˌ: ',' };

/**
 * The IPA a person may type, in the form eSpeak writes it: NFC, ASCII `g` as `ɡ`, `'`, `,` and
 * `:` as `ˈ`, `ˌ` and `ː`, syllable breaks and enclosing `/…/` or `[…]` dropped, one space between words.
 */
export function normalizeIpa(ipa: string): string {
  return ipa
    .normalize('NFC')
    .trim()
    .replace(/^[/[](.*)[/\]]$/su, '$1')
    .replaceAll('g', 'ɡ')
    .replaceAll("'", 'ˈ')
    .replaceAll(',', 'ˌ')
    .replaceAll(':', 'ː')
    .replaceAll('.', '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Which mnemonic speaks each IPA symbol: the shortest mnemonic wins (eSpeak's usual one), then the first. */
export function ipaTable(inventory: readonly EspeakPhoneme[]): Map<string, string> {
  // Length and palatalisation are modifiers in eSpeak, spoken with the phoneme before them.
  const table = new Map<string, string>([
    ['ː', ':'],
    ['ʲ', ';'],
  ]);
  for (const { mnemonic, ipa } of inventory) {
    // NFC, as `normalizeIpa` writes the input: eSpeak reports some nasal vowels decomposed (pt ũ).
    const sound = ipa.replace(/[ˈˌ]/gu, '').normalize('NFC');
    // Phonemes eSpeak writes with its own notation (a hyphen, a caret, a digit) are not IPA input.
    if (sound === '' || /[-^.\d#]/u.test(sound)) continue;
    const known = table.get(sound);
    if (known === undefined || mnemonic.length < known.length) table.set(sound, mnemonic);
  }
  return table;
}

/**
 * The `[[…]]` text speaking `ipa` in the voice whose phonemes are `table`, or the symbols it has
 * no phoneme for. Each word is read left to right taking the longest IPA sequence the voice has
 * a phoneme for; `ˈ` and `ˌ` become eSpeak's stress marks, which it places before the vowel.
 */
export function ipaToEspeak(ipa: string, table: ReadonlyMap<string, string>): { text: string } | { unknown: string[] } {
  const longest = Math.max(1, ...[...table.keys()].map((sound) => [...sound].length));
  const unknown: string[] = [];
  const words: string[] = [];
  for (const word of normalizeIpa(ipa).split(' ')) {
    const symbols = [...word];
    const mnemonics: string[] = [];
    let at = 0;
    while (at < symbols.length) {
      const stress = STRESS[symbols[at]!];
      if (stress !== undefined) {
        mnemonics.push(stress);
        at++;
        continue;
      }
      let matched = 0;
      for (let size = Math.min(longest, symbols.length - at); size > 0; size--) {
        const mnemonic = table.get(symbols.slice(at, at + size).join(''));
        if (mnemonic !== undefined) {
          mnemonics.push(mnemonic);
          matched = size;
          break;
        }
      }
      if (matched === 0) {
        // The symbol with the combining marks that belong to it.
        let end = at + 1;
        while (end < symbols.length && /\p{M}/u.test(symbols[end]!)) end++;
        const symbol = symbols.slice(at, end).join('');
        if (!unknown.includes(symbol)) unknown.push(symbol);
        matched = end - at;
      }
      at += matched;
    }
    // A word boundary inside [[…]] is a space.
    if (mnemonics.length > 0) words.push(mnemonics.join(''));
  }
  if (unknown.length > 0) return { unknown };
  return { text: `[[${words.join(' ')}]]` };
}
