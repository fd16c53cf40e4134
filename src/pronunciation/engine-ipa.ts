/**
 * What eSpeak NG's `phonemize` writes besides IPA, taken out before it goes into a guide, so the
 * guide's IPA is one the engine speaks back (`synthesize({ phonemes })`) and the respelling key
 * reads:
 *
 * - A language switch: eSpeak reads a word it knows as English with its English rules even in
 *   another voice, and writes `(en)ˈɑːθə(fr)` ("Arthur" in French). The part is then English.
 * - Its tone notation in Chinese and Vietnamese: digits, and `ɜ` after a vowel for the rising
 *   tone (妈 mˈɑ5, 麻 mˈɑɜ, 马 mˈɑ2). It is its own, not IPA, writes two tones alike (mā and mà
 *   are both `5`) and the engine refuses it as phoneme input, so guides carry no tones yet.
 * - `-` and `.` inside a word (Vietnamese `ˈe-ɲ`, Chinese `ts.ˈɑŋ`), its own syllable notation.
 *
 * And rules where eSpeak's voice says a name other than its speakers do (`LANGUAGE_RULES`),
 * each measured with `npm run eval:pronunciation` (docs/pronunciation.md, "Quality").
 */

const SWITCH = /^\(([a-z]{2,3}(?:-[a-z0-9]+)*)\)(.*?)(?:\([a-z]{2,3}(?:-[a-z0-9]+)*\))?$/su;
const TONE_LANGUAGES = new Set(['zh', 'cmn', 'yue', 'vi']);
const VOWEL = 'aeiouyɑɐɒæɛəɜɪɨɯʊʌɔøœɤ';

/**
 * Portuguese (eSpeak's voice is European): Lisbon says "ei" as ɐj (Ferreira, Pereira), and an e
 * before the stressed syllable is reduced to ɨ (Teresa tɨˈɾezɐ), where eSpeak keeps eɪ and e;
 * and "ão" is written as the diphthong the voice speaks.
 * Only sounds the pt voice has, so the guide is still spoken from its IPA.
 */
function portuguese(word: string): string {
  const stressAt = word.indexOf('ˈ');
  const before = stressAt === -1 ? '' : word.slice(0, stressAt).replace(/e(?!ɪ)/gu, 'ɨ');
  // eSpeak writes "ão" as ɐ̃ʊ̃ but its voice has only the diphthong ɐ̃ʊ, which sounds the same.
  return (before + word.slice(Math.max(0, stressAt))).replaceAll('eɪ', 'ɐj').replaceAll('ɐ̃ʊ̃', 'ɐ̃ʊ');
}

const LANGUAGE_RULES: Readonly<Record<string, (word: string) => string>> = { pt: portuguese };

export function cleanEngineIpa(ipa: string, language: string): { ipa: string; language: string } {
  let text = ipa.normalize('NFC').trim();
  let spokenIn = language;
  const switched = SWITCH.exec(text);
  if (switched) {
    spokenIn = switched[1]!;
    text = switched[2]!;
  }
  // Any switch left inside several words: the markers go, the words stay.
  text = text.replace(/\([a-z]{2,3}(?:-[a-z0-9]+)*\)/gu, '');
  text = text.replace(/(?<=\S)[-.](?=\S)/gu, '').replace(/\s+/gu, ' ');
  const primary = language.toLowerCase().split(/[-_]/u)[0]!;
  if (TONE_LANGUAGES.has(primary)) {
    text = text.replace(/[0-9]/gu, '').replace(new RegExp(`(?<=[${VOWEL}]\\p{M}*)ɜ(?![${VOWEL}])`, 'gu'), '');
  }
  const rule = LANGUAGE_RULES[spokenIn.toLowerCase()];
  if (rule) text = text.split(' ').map(rule).join(' ');
  return { ipa: text.trim(), language: spokenIn };
}
