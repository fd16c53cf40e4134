/**
 * The respelling key as data: each sound of a pronunciation guide with the letters an English
 * reader sees for it and a word that has the sound. Pages show `RESPELLING_KEY` as the key table;
 * `respelling-key.ts` reads both directions from it, so the table and the conversion never differ.
 */

export interface RespellingKeyRow {
  /** The sound in IPA, as the speech engine writes it (a person's respelling reads back to this). */
  ipa: string;
  /** What an English reader sees for it (lower case; the stressed syllable is shown in capitals). */
  respelling: string;
  /** A word with the sound, for the key table. */
  example: string;
  /** Sounds English does not have: the key table marks them and says roughly how they sound. */
  nonEnglish?: string;
}

export const RESPELLING_KEY: readonly RespellingKeyRow[] = [
  // English vowels (General American, as the speech engine's English voice speaks them).
  { ipa: 'æ', respelling: 'a', example: 'cat' },
  { ipa: 'ɑː', respelling: 'ah', example: 'father' },
  { ipa: 'ɒ', respelling: 'o', example: 'lot (British)' },
  { ipa: 'ɛ', respelling: 'e', example: 'dress' },
  { ipa: 'eɪ', respelling: 'ay', example: 'face' },
  { ipa: 'ɪ', respelling: 'i', example: 'kit' },
  { ipa: 'iː', respelling: 'ee', example: 'fleece' },
  { ipa: 'aɪ', respelling: 'igh', example: 'high' },
  { ipa: 'ɔː', respelling: 'aw', example: 'thought' },
  { ipa: 'ɔɪ', respelling: 'oy', example: 'choice' },
  { ipa: 'oʊ', respelling: 'oh', example: 'goat' },
  { ipa: 'aʊ', respelling: 'ow', example: 'mouth' },
  { ipa: 'ʊ', respelling: 'uu', example: 'foot' },
  { ipa: 'uː', respelling: 'oo', example: 'goose' },
  { ipa: 'ʌ', respelling: 'u', example: 'strut' },
  { ipa: 'ɜː', respelling: 'ur', example: 'nurse' },
  { ipa: 'ə', respelling: 'ə', example: 'comma (may be typed uh)' },
  { ipa: 'ɚ', respelling: 'ər', example: 'letter' },
  // English consonants.
  { ipa: 'b', respelling: 'b', example: 'bat' },
  { ipa: 'd', respelling: 'd', example: 'dog' },
  { ipa: 'f', respelling: 'f', example: 'fun' },
  { ipa: 'ɡ', respelling: 'g', example: 'go' },
  { ipa: 'h', respelling: 'h', example: 'hat' },
  { ipa: 'dʒ', respelling: 'j', example: 'jam' },
  { ipa: 'k', respelling: 'k', example: 'kite' },
  { ipa: 'l', respelling: 'l', example: 'leg' },
  { ipa: 'm', respelling: 'm', example: 'man' },
  { ipa: 'n', respelling: 'n', example: 'no' },
  { ipa: 'ŋ', respelling: 'ng', example: 'sing' },
  { ipa: 'p', respelling: 'p', example: 'pen' },
  { ipa: 'ɹ', respelling: 'r', example: 'red (see "r-sounds")' },
  { ipa: 's', respelling: 's', example: 'sun' },
  { ipa: 'ʃ', respelling: 'sh', example: 'ship' },
  { ipa: 't', respelling: 't', example: 'top' },
  { ipa: 'tʃ', respelling: 'ch', example: 'chin' },
  { ipa: 'θ', respelling: 'th', example: 'thin' },
  { ipa: 'ð', respelling: 'dh', example: 'this' },
  { ipa: 'v', respelling: 'v', example: 'van' },
  { ipa: 'w', respelling: 'w', example: 'wet' },
  { ipa: 'ʍ', respelling: 'wh', example: 'which (Scottish)' },
  { ipa: 'j', respelling: 'y', example: 'yes' },
  { ipa: 'z', respelling: 'z', example: 'zoo' },
  { ipa: 'ʒ', respelling: 'zh', example: 'vision' },
  // Sounds English does not have.
  { ipa: 'x', respelling: 'kh', example: 'loch, Bach', nonEnglish: 'k said with the tongue not quite closing' },
  { ipa: 'ɣ', respelling: 'gh', example: 'Spanish lago', nonEnglish: 'a g with the tongue not quite closing' },
  { ipa: 'r', respelling: 'rr', example: 'Spanish perro', nonEnglish: 'a rolled r' },
  { ipa: 'ɲ', respelling: 'ny', example: 'Spanish España', nonEnglish: 'n and y as one sound' },
  { ipa: 'ʎ', respelling: 'ly', example: 'Italian figlio', nonEnglish: 'l and y as one sound' },
  { ipa: 'ɬ', respelling: 'hl', example: 'Welsh Llewelyn', nonEnglish: 'l breathed out, without voice' },
  { ipa: 'ħ', respelling: 'hh', example: 'Arabic Muhammad', nonEnglish: 'a strong h from the throat' },
  { ipa: 'ʕ', respelling: 'ʿ', example: 'Arabic ʿAli', nonEnglish: 'a voiced catch deep in the throat' },
  { ipa: 'ʔ', respelling: "'", example: "uh-'oh", nonEnglish: 'the catch in "uh-oh"' },
  { ipa: 'y', respelling: 'ü', example: 'French tu, German über', nonEnglish: 'ee said with rounded lips' },
  { ipa: 'ø', respelling: 'ö', example: 'French peu, German schön', nonEnglish: 'ay said with rounded lips' },
  { ipa: 'ɯ', respelling: 'eu', example: 'Korean Eun', nonEnglish: 'oo said with spread lips' },
];

/**
 * Sounds written with another row's letters (and so read back as that row's sound): the variants
 * the speech engine writes for other languages or for unstressed syllables, and sounds near
 * enough for an English reader. This is the documented normalisation of the round trip.
 */
export const RESPELLING_VARIANTS: Readonly<Record<string, string>> = {
  // Length and quality variants of the English vowels.
  i: 'iː',
  ɪː: 'ɪ',
  ᵻ: 'ɪ',
  ɨ: 'ɯ',
  e: 'eɪ',
  eː: 'eɪ',
  ɛː: 'ɛ',
  ɛɪ: 'eɪ',
  a: 'ɑː',
  aː: 'ɑː',
  ɑ: 'ɑː',
  ɔ: 'ɔː',
  o: 'oʊ',
  oː: 'oʊ',
  əʊ: 'oʊ',
  ɔø: 'ɔɪ',
  u: 'uː',
  ɜ: 'ɜː',
  ɝ: 'ɜː',
  ɞ: 'ɜː',
  ɐ: 'ə',
  ɘ: 'ə',
  ɵ: 'ə',
  ɤ: 'ʌ',
  ʏ: 'y',
  yː: 'y',
  œ: 'ø',
  øː: 'ø',
  ɶ: 'ø',
  // Consonants near a row's sound.
  ç: 'x',
  χ: 'x',
  ʀ: 'ɹ',
  ʁ: 'ɹ',
  ɻ: 'ɹ',
  ʝ: 'j',
  c: 'k',
  q: 'k',
  ɟ: 'ɡ',
  ɢ: 'ɡ',
  ʋ: 'v',
  β: 'b',
  ɸ: 'f',
  ɕ: 'ʃ',
  ʂ: 'ʃ',
  ʑ: 'ʒ',
  ʐ: 'ʒ',
  tɕ: 'tʃ',
  dʑ: 'dʒ',
  ʈ: 't',
  ɖ: 'd',
  ɗ: 'd',
  ɓ: 'b',
  ɳ: 'n',
  ɴ: 'ŋ',
  ɭ: 'l',
  ɫ: 'l',
  ɰ: 'w',
  ɥ: 'w',
  ɦ: 'h',
};

/** What a person may type for a sound besides the key's own letters. */
export const RESPELLING_TYPED_ALIASES: Readonly<Record<string, string>> = {
  uh: 'ə',
  eye: 'aɪ',
  '’': 'ʔ',
};

/**
 * The r-sounds are all written `r` (`rr` for a rolled r) and read back as the language's own r,
 * so a guide in French asks the French voice for its r. English reads the tap `ɾ` (the American
 * t in "city") as `t`.
 */
export const TAP_AS_T_LANGUAGES: ReadonlySet<string> = new Set(['en']);

export function rSoundFor(language: string): string {
  const primary = language.toLowerCase().split(/[-_]/u)[0] ?? '';
  if (primary === 'en') return 'ɹ';
  if (primary === 'fr' || primary === 'de' || primary === 'he' || primary === 'da') return 'ʁ';
  return 'ɾ';
}

/**
 * Outside English, a respelled vowel is read back as the plain vowel the language's own voice has
 * (`ah` as a, `ay` as e, `oh` as o): English's long vowels and glides are not in its sounds.
 */
// prettier-ignore
export const PLAIN_VOWELS: Readonly<Record<string, string>> = {
  æ: 'a', ɑː: 'a', ɒ: 'ɔ', eɪ: 'e', ɪ: 'i', iː: 'i', aɪ: 'ai', ɔː: 'ɔ', ɔɪ: 'oi', oʊ: 'o', aʊ: 'au',
  ʊ: 'u', uː: 'u', ʌ: 'a', ɜː: 'ə', ɚ: 'ə',
};

/**
 * Sounds a language's voice has only in another form (after `PLAIN_VOWELS`): German's ü and ö
 * are long, Portuguese has ɨ for ɯ, Korean's a is ɐ, Hindi's v is ʋ.
 */
export const LANGUAGE_FORMS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  de: { y: 'yː', ø: 'øː' },
  ko: { a: 'ɐ', ai: 'ɛ', au: 'ɐu', oi: 'oe', y: 'wi', ø: 'we' },
  pt: { ɯ: 'ɨ', y: 'i' },
  hi: { y: 'i', ø: 'e', ɯ: 'ʊ', v: 'ʋ' },
  ar: { y: 'i', ø: 'e', ɯ: 'u' },
};

/** A nasal vowel (a tilde over it) is the vowel's letters followed by `ñ`: French bon is `bawñ`. */
export const NASAL_LETTER = 'ñ';
