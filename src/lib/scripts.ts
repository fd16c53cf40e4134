/**
 * The writing systems of an agent's name: which scripts its letters come from, whether that mix
 * is one a reader can trust (UTS #39's "highly restrictive" level: one script, or Latin with
 * the Chinese, Japanese or Korean combinations), and the language (BCP 47) that reads the name in
 * its own script instead of spelling it out as English. Engine-neutral: each speech engine maps
 * these languages to its own voices.
 */

/** Scripts we tell apart, each with the BCP 47 language that reads it best. */
const SCRIPTS: ReadonlyArray<{ name: string; letters: RegExp; speech: string }> = [
  { name: 'Latin', letters: /\p{Script=Latin}/u, speech: 'en' },
  { name: 'Greek', letters: /\p{Script=Greek}/u, speech: 'el' },
  { name: 'Cyrillic', letters: /\p{Script=Cyrillic}/u, speech: 'ru' },
  { name: 'Armenian', letters: /\p{Script=Armenian}/u, speech: 'hy' },
  { name: 'Hebrew', letters: /\p{Script=Hebrew}/u, speech: 'he' },
  { name: 'Arabic', letters: /\p{Script=Arabic}/u, speech: 'ar' },
  { name: 'Devanagari', letters: /\p{Script=Devanagari}/u, speech: 'hi' },
  { name: 'Bengali', letters: /\p{Script=Bengali}/u, speech: 'bn' },
  { name: 'Gurmukhi', letters: /\p{Script=Gurmukhi}/u, speech: 'pa' },
  { name: 'Gujarati', letters: /\p{Script=Gujarati}/u, speech: 'gu' },
  { name: 'Tamil', letters: /\p{Script=Tamil}/u, speech: 'ta' },
  { name: 'Telugu', letters: /\p{Script=Telugu}/u, speech: 'te' },
  { name: 'Kannada', letters: /\p{Script=Kannada}/u, speech: 'kn' },
  { name: 'Malayalam', letters: /\p{Script=Malayalam}/u, speech: 'ml' },
  { name: 'Sinhala', letters: /\p{Script=Sinhala}/u, speech: 'si' },
  { name: 'Thai', letters: /\p{Script=Thai}/u, speech: 'th' },
  { name: 'Georgian', letters: /\p{Script=Georgian}/u, speech: 'ka' },
  { name: 'Ethiopic', letters: /\p{Script=Ethiopic}/u, speech: 'am' },
  { name: 'Hangul', letters: /\p{Script=Hangul}/u, speech: 'ko' },
  { name: 'Hiragana', letters: /\p{Script=Hiragana}/u, speech: 'ja' },
  { name: 'Katakana', letters: /\p{Script=Katakana}/u, speech: 'ja' },
  { name: 'Bopomofo', letters: /\p{Script=Bopomofo}/u, speech: 'zh' },
  { name: 'Han', letters: /\p{Script=Han}/u, speech: 'zh' },
];

/** Mixes UTS #39 allows at its "highly restrictive" level (with Latin or without). */
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];

/** The scripts of the name's letters, in order of first appearance ("Other" for scripts not listed). */
export function scriptsOf(name: string): string[] {
  const found: string[] = [];
  for (const char of name.normalize('NFC')) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPTS.find((s) => s.letters.test(char))?.name ?? `Other:${char}`;
    if (!found.includes(script)) found.push(script);
  }
  return found;
}

/**
 * Null when the mix of scripts is one a reader can trust; otherwise the scripts mixed, e.g.
 * ["Cyrillic", "Latin"] for "Оrbit" written with a Cyrillic О, which looks exactly like "Orbit".
 */
export function untrustedScriptMix(name: string): string[] | null {
  const scripts = scriptsOf(name);
  if (scripts.length <= 1) return null;
  if (ALLOWED_MIXES.some((mix) => scripts.every((script) => mix.has(script)))) return null;
  return scripts.map((script) => (script.startsWith('Other:') ? 'another script' : script));
}

/** The language (BCP 47) for the name's first non-Latin script (a Japanese name with kanji reads as Japanese). */
export function speechLanguageFor(name: string): string | undefined {
  const scripts = scriptsOf(name);
  if (scripts.includes('Hiragana') || scripts.includes('Katakana')) return 'ja';
  if (scripts.includes('Hangul')) return 'ko';
  const first = scripts.find((script) => script !== 'Latin');
  return first ? SCRIPTS.find((s) => s.name === first)?.speech : undefined;
}
