/**
 * The respelling key, both ways: IPA to the letters an English reader says aloud (`shiv-AWN`),
 * and a person's edited respelling back to IPA the speech engine speaks. Syllables are joined by
 * `-`, words by a space, and the syllable with the main stress is in capitals. The key's rows are
 * `RESPELLING_KEY` (respelling-table.ts); docs/pronunciation.md explains it to people.
 *
 * Read back, a respelling gives each sound as its key row writes it, so the round trip keeps the
 * sounds and changes only what the key does not write: where the stress mark stands (at the
 * start of its syllable), secondary stress (dropped), length, marks such as aspiration, and
 * variants read as their row (`RESPELLING_VARIANTS`: Spanish `e` comes back as `eɪ`).
 */
import {
  LANGUAGE_FORMS,
  NASAL_LETTER,
  PLAIN_VOWELS,
  RESPELLING_KEY,
  RESPELLING_TYPED_ALIASES,
  RESPELLING_VARIANTS,
  rSoundFor,
  TAP_AS_T_LANGUAGES,
} from './respelling-table.js';
import { RespellingError, type Sound, syllablesOf, TAP } from './syllables.js';

export { RESPELLING_KEY } from './respelling-table.js';
export { RespellingError } from './syllables.js';

const LETTERS_FOR = new Map(RESPELLING_KEY.map((row) => [row.ipa, row.respelling]));
/** Respelled letters → IPA, longest letters first (the reader takes the longest match). */
const SOUND_FOR = new Map<string, string>([
  ...RESPELLING_KEY.map((row) => [row.respelling, row.ipa] as const),
  ...Object.entries(RESPELLING_TYPED_ALIASES),
]);
const LONGEST_LETTERS = Math.max(...[...SOUND_FOR.keys()].map((letters) => [...letters].length));
const TONE = /[1-6˥˦˧˨˩]/u;

function primaryOf(language: string): string {
  return language.toLowerCase().split(/[-_]/u)[0] ?? '';
}

function lettersOf(sound: Sound, language: string): string {
  if (sound.kind === 'tone') return sound.ipa;
  let letters: string;
  if (sound.ipa === TAP) letters = TAP_AS_T_LANGUAGES.has(primaryOf(language)) ? 't' : 'r';
  else letters = LETTERS_FOR.get(sound.ipa) ?? LETTERS_FOR.get(RESPELLING_VARIANTS[sound.ipa] ?? '') ?? '';
  return sound.nasal ? letters + NASAL_LETTER : letters;
}

/**
 * IPA (as the speech engine or a dictionary writes it) as the key's respelling, e.g. ʃɪvˈɔːn →
 * `shiv-AWN`, ˈiːfə → `EE-fə`. `language` decides only the tap ɾ (an English t, elsewhere r).
 * Throws `RespellingError` for an IPA symbol the key has no letters for.
 */
export function ipaToRespelling(ipa: string, language = 'en'): string {
  return syllablesOf(ipa)
    .map((word) =>
      word
        .flatMap((syllable) => {
          const pieces = spellUnambiguously(syllable.sounds, language);
          if (syllable.stress !== 'primary') return pieces.map((piece) => piece.letters);
          // Only the piece with the vowel is in capitals: a cut-off consonant is not a second stress.
          const stressed = Math.max(
            0,
            pieces.findIndex((piece) => piece.vowel),
          );
          return pieces.map((piece, index) => (index === stressed ? piece.letters.toUpperCase() : piece.letters));
        })
        .join('-'),
    )
    .join(' ');
}

/**
 * A syllable's letters, cut with `-` where two sounds' letters would read back as other sounds
 * (in English ʌ then ɹ would read as the `ur` of "nurse", ɜː): the reader must get back the
 * sounds that were written.
 */
function spellUnambiguously(sounds: readonly Sound[], language: string): Array<{ letters: string; vowel: boolean }> {
  const pieces: Array<{ letters: string; vowel: boolean }> = [];
  let piece = { letters: '', vowel: false };
  let readBack = '';
  for (const sound of sounds) {
    const next = lettersOf(sound, language);
    const nextSounds = soundsOfLetters(next, next, language);
    if (piece.letters !== '' && soundsOfLetters(piece.letters + next, next, language) !== readBack + nextSounds) {
      pieces.push(piece);
      piece = { letters: '', vowel: false };
      readBack = '';
    }
    piece.letters += next;
    piece.vowel ||= sound.kind === 'vowel';
    readBack += nextSounds;
  }
  if (piece.letters !== '') pieces.push(piece);
  return pieces;
}

/** Lower-case respelled letters as the key's tokens (letters, tones, the nasal `ñ`); null where unreadable. */
function readLetters(letters: string): string[] {
  const chars = [...letters];
  const tokens: string[] = [];
  let at = 0;
  while (at < chars.length) {
    let matched = 0;
    for (let size = Math.min(LONGEST_LETTERS, chars.length - at); size > 0; size--) {
      const piece = chars.slice(at, at + size).join('');
      if (SOUND_FOR.has(piece)) {
        tokens.push(piece);
        matched = size;
        break;
      }
    }
    if (matched === 0) {
      const char = chars[at]!;
      if (char !== NASAL_LETTER && !TONE.test(char)) throw new RespellingError(`"${char}" is not in the respelling key`, char);
      tokens.push(char);
      matched = 1;
    }
    at += matched;
  }
  return tokens;
}

/**
 * A respelling (the key's letters, `-` between syllables, the stressed syllable in capitals) as
 * IPA the speech engine speaks in `language`: `shiv-AWN` → ʃɪvˈɔːn, the stress mark at the start
 * of its syllable. `r` is read as the language's r (ɹ in English, ʁ
 * in French, ɾ in Spanish), and outside English a vowel as the language's plain vowel
 * (`PLAIN_VOWELS`: `ah` as a, `ay` as e; `LANGUAGE_FORMS`), so the language's voice has every sound. A syllable counts as stressed when all its letters are capitals.
 * Throws `RespellingError` naming the first part it cannot read (a letter outside the key, an
 * empty syllable, a nasal `ñ` after no vowel).
 */
export function respellingToIpa(respelling: string, language = 'en'): string {
  const words = respelling
    .normalize('NFC')
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== '');
  if (words.length === 0) throw new RespellingError('The respelling is empty', respelling);
  return words
    .map((word) =>
      word
        .split('-')
        .map((syllable) => {
          if (syllable === '') throw new RespellingError(`"${word}" has an empty syllable (two hyphens or one at an end)`, word);
          const cased = [...syllable].filter((char) => char.toLowerCase() !== char.toUpperCase());
          const stressed = cased.length > 0 && cased.every((char) => char === char.toUpperCase());
          return (stressed ? 'ˈ' : '') + soundsOfLetters(syllable.toLowerCase(), syllable, language);
        })
        .join(''),
    )
    .join(' ');
}

function soundsOfLetters(letters: string, syllable: string, language: string): string {
  const primary = primaryOf(language);
  // The r-coloured ə of American "letter" is English's; elsewhere `ər` is ə and the language's r.
  const english = primary === 'en';
  let ipa = '';
  /** The last vowel as the key reads it, and as written into `ipa`. */
  let lastVowel: { key: string; written: string } | null = null;
  for (const token of readLetters(letters)) {
    if (token === NASAL_LETTER) {
      if (lastVowel === null || !ipa.endsWith(lastVowel.written)) {
        throw new RespellingError(`"${syllable}": the nasal ñ must follow a vowel`, syllable);
      }
      ipa = ipa.slice(0, -lastVowel.written.length) + nasalOf(lastVowel.key, lastVowel.written, primary);
      lastVowel = null;
      continue;
    }
    if (TONE.test(token)) {
      ipa += token;
      continue;
    }
    const key =
      token === 'r' ? rSoundFor(language) : token === 'ər' && !english ? `ə${rSoundFor(language)}` : SOUND_FOR.get(token)!;
    const plain = english ? key : (PLAIN_VOWELS[key] ?? key);
    const sound = english ? key : (LANGUAGE_FORMS[primary]?.[plain] ?? plain);
    ipa += sound;
    lastVowel = /^[aeiouyøɑɒæɛəɜɚɪɯʊʌɔ]/u.test(sound) ? { key, written: sound } : null;
  }
  return ipa.normalize('NFC');
}

/** The nasal vowels French and Portuguese voices have, by the key's vowel; elsewhere the vowel with a tilde. */
const NASAL_VOWELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  fr: { ɑː: 'ɑ̃', æ: 'ɑ̃', ɛ: 'ɛ̃', ɔː: 'ɔ̃', oʊ: 'ɔ̃', ø: 'œ̃', ə: 'œ̃' },
  pt: { ɑː: 'ɐ̃', ə: 'ɐ̃', æ: 'ɐ̃', eɪ: 'ẽ', ɛ: 'ẽ', iː: 'ĩ', ɪ: 'ĩ', oʊ: 'õ', ɔː: 'õ', uː: 'ũ', ʊ: 'ũ' },
};

function nasalOf(key: string, written: string, primary: string): string {
  return NASAL_VOWELS[primary]?.[key] ?? `${written.replace('ː', '')}\u0303`;
}
