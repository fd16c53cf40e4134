/**
 * Phoneme error rate: the edit distance between two transcriptions' phoneme tokens over the
 * reference's length. Both sides are first normalised (`comparablePhonemes`), so a guide is not
 * counted wrong for how a dictionary writes IPA rather than for what it says.
 */

/** Combining marks kept when comparing: the tilde of a nasal vowel. Every other mark is dropped. */
const KEPT_MARKS = new Set(['\u0303']);

/**
 * IPA as comparable tokens: NFD; stress marks, length, syllable dots, tie bars and tones (tone
 * letters ˥˦˧˨˩ and eSpeak's tone digits, which the two sides write differently) dropped;
 * aspiration and other modifier letters dropped; ASCII g as ɡ; every combining mark but the
 * nasal tilde dropped. A token is one base symbol with its nasal mark, so an affricate (tʃ) or a
 * diphthong (aɪ) counts as two.
 *
 * `notation` (per language, `EVAL_NOTATION`) first rewrites sequences and then replaces single
 * tokens that the reference and the engine write differently for one phoneme (English ɐ for ə).
 */
export function comparablePhonemes(ipa: string, notation: Notation = {}): string[] {
  const equivalences = notation.same ?? {};
  const tokens: string[] = [];
  let text = ipa.normalize('NFD');
  for (const [pattern, replacement] of notation.rewrite ?? []) text = text.replace(pattern, replacement);
  text = text
    .replace(/[/[\]ˈˌːˑ.\-_'"`]/gu, '')
    .replace(/[˥˦˧˨˩0-9]/gu, '')
    .replace(/[ʰʱʲʷˠˤˀⁿ]/gu, '')
    .replaceAll('g', 'ɡ');
  for (const char of text) {
    if (/\s/u.test(char)) continue;
    if (/\p{M}/u.test(char)) {
      if (KEPT_MARKS.has(char) && tokens.length > 0) tokens[tokens.length - 1] += char;
      continue;
    }
    tokens.push(char);
  }
  return tokens.flatMap((token) => {
    const replaced = equivalences[token];
    return replaced === undefined ? [token] : replaced === '' ? [] : [...replaced.normalize('NFD')];
  });
}

/** Levenshtein distance between two token lists. */
export function editDistance(a: readonly string[], b: readonly string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Errors and reference length of `hypothesis` against the closest of `references` (a dictionary
 * may list several readings of a name; saying any of them is right).
 */
export function scoreAgainst(
  hypothesis: string,
  references: readonly string[],
  notation: Notation = {},
): { errors: number; length: number } {
  const said = comparablePhonemes(hypothesis, notation);
  let best = { errors: Number.POSITIVE_INFINITY, length: 1 };
  for (const reference of references) {
    const expected = comparablePhonemes(reference, notation);
    const errors = editDistance(said, expected);
    if (errors / Math.max(1, expected.length) < best.errors / best.length)
      best = { errors, length: Math.max(1, expected.length) };
  }
  return best;
}

export interface Notation {
  /** Sequences rewritten first (on NFD text, before stress and length are dropped). */
  rewrite?: ReadonlyArray<readonly [RegExp, string]>;
  /** Then one token → another ('' drops it). */
  same?: Readonly<Record<string, string>>;
}

/** A long consonant written with ː (eSpeak) as the doubled consonant a dictionary writes (tʃː as ttʃ). */
const GEMINATE_AFFRICATE: readonly [RegExp, string] = [/([td])([ʃʒsz])ː/gu, '$1$1$2'];
const GEMINATE: readonly [RegExp, string] = [/([bcdfɡhjklmnprstvzʃʒ])ː/gu, '$1$1'];
/** A stop followed by h is eSpeak's aspirated stop; the references write ʰ, which is dropped. */
const ASPIRATION: readonly [RegExp, string] = [/(?<=[ptkɕʃs])h/gu, ''];

/**
 * Per language, how the references and eSpeak NG write one phoneme differently: notation, not
 * pronunciation. Each entry says what it is for; `--raw` scores without them.
 */
export const EVAL_NOTATION: Readonly<Record<string, Notation>> = {
  // eSpeak writes reduced vowels ɐ and ᵻ and the American flap ɾ; CMU writes ə, ɪ and t.
  en: { same: { ɐ: 'ə', ᵻ: 'ɪ', ɾ: 't' } },
  // eSpeak's vocalic r is ɜ, its r ɾ; the dictionary writes ɐ and ʁ/ʀ, and a glottal onset ʔ eSpeak leaves out.
  de: { same: { ɜ: 'ɐ', ɾ: 'ʁ', ʀ: 'ʁ', r: 'ʁ', ɑ: 'a', ʔ: '' } },
  // eSpeak writes the schwa as ʌ, ज as ɟ, ह as h and र as ɾ.
  hi: { same: { ʌ: 'ə', ɟ: 'dʒ', ɦ: 'h', ɾ: 'r' } },
  // Long consonants as ː, unstressed i and u as ɪ ʊ, r as ɾ between vowels, n before k/g as n.
  it: { rewrite: [GEMINATE_AFFRICATE, GEMINATE], same: { ɪ: 'i', ʊ: 'u', ɾ: 'r', ŋ: 'n' } },
  // Lenis stops are written voiced by eSpeak and plain by the dictionary; its final k is q.
  ko: {
    rewrite: [ASPIRATION],
    same: { ɡ: 'k', b: 'p', d: 't', ʃ: 'ɕ', ʒ: 'ɕ', ʑ: 'ɕ', ɐ: 'a', q: 'k', ɫ: 'l', ɭ: 'l' },
  },
  // Reduced vowels ʊ ɪ ɨ and the fricative allophones β ɣ, which eSpeak writes u i ə b ɡ.
  pt: { same: { ʊ: 'u', ɪ: 'i', ɨ: 'ə', ɣ: 'ɡ', β: 'b', ɹ: 'ɾ' } },
  // Northern "tr"/"ch" is c in the dictionary and tʃ in eSpeak; đ is d; final "nh" is ŋ there, ɲ here.
  vi: { rewrite: [[/tʃ/gu, 'c'], [/ɲ(?=\s|$)/gu, 'ŋ'], ASPIRATION], same: { ɗ: 'd' } },
  // eSpeak's own spellings of retroflex and aspirated initials and of -ong, -ou, -ai, -ei finals.
  zh: {
    rewrite: [ASPIRATION, [/onɡ/gu, 'ʊŋ'], [/ou/gu, 'oʊ'], [/ɑu/gu, 'ɑʊ'], [/ai/gu, 'aɪ'], [/ei/gu, 'eɪ']],
    same: { ʈ: 't', ʂ: 's', χ: 'x' },
  },
};
