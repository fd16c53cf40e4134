/**
 * IPA read as the respelling key's sounds and cut into syllables: `.` and a stress mark before a
 * consonant cut where they stand; elsewhere the consonants between two vowels go to the second
 * syllable as far as English lets a syllable start with them (maximal onset: "Andrew" is an-drew,
 * not and-rew), except one that closes a short vowel (shiv-AWN).
 */
import { RESPELLING_KEY, RESPELLING_VARIANTS } from './respelling-table.js';

/** IPA or a respelling the key cannot read; `part` is what it could not read. */
export class RespellingError extends Error {
  constructor(
    message: string,
    readonly part: string,
  ) {
    super(message);
    this.name = 'RespellingError';
  }
}

export type Stress = 'primary' | 'secondary' | null;

export interface Sound {
  /** The key row's IPA (a variant is read as its row's sound); a tone is its digit or tone letter. */
  ipa: string;
  /** The IPA as written, without stress marks (what a variant was before it was read as its row). */
  written: string;
  kind: 'vowel' | 'consonant' | 'tone';
  nasal: boolean;
}

export interface Syllable {
  sounds: Sound[];
  stress: Stress;
}

const VOWEL_LETTERS = new Set([...'aeiouyøœɑɒæɐɛəɘɜɝɚɞɤɪɨɯʉʊʌɔɵᵻɶ']);
const TONES = /^[1-6˥˦˧˨˩]$/u;
/** The tap: an English t ("city"), elsewhere an r; read by `respelling-key.ts` with the language. */
export const TAP = 'ɾ';

const KNOWN = new Map<string, string>();
for (const row of RESPELLING_KEY) KNOWN.set(row.ipa, row.ipa);
for (const [variant, row] of Object.entries(RESPELLING_VARIANTS)) KNOWN.set(variant, row);
KNOWN.set(TAP, TAP);
const LONGEST = Math.max(...[...KNOWN.keys()].map((ipa) => [...ipa.replace('ː', '')].length));

/**
 * Clusters an English syllable may start with (besides any one consonant but ŋ). `nj` and `lj`
 * are left out on purpose: "Kenya" is KEN-yə, since `ny` and `ly` are the key's ɲ and ʎ.
 */
// prettier-ignore
const ONSETS = new Set(
  [
    'p ɹ', 'p l', 'p j', 'b ɹ', 'b l', 'b j', 't ɹ', 't w', 'd ɹ', 'd w', 'k ɹ', 'k l', 'k w', 'k j',
    'ɡ ɹ', 'ɡ l', 'ɡ w', 'f ɹ', 'f l', 'f j', 'θ ɹ', 'θ w', 'ʃ ɹ', 'v j', 'm j', 'h j', 's w', 's m',
    's n', 's p', 's t', 's k', 's l', 's p ɹ', 's p l', 's t ɹ', 's k ɹ', 's k w', 's k l',
  ],
);

/**
 * English ends no syllable on a short ("checked") vowel, so one is respelled with the consonant
 * after it, as dictionaries do: shiv-AWN, not shi-VAWN (read "shy"); KATH-rin. Not before an r
 * after ʌ, whose letters would read as the `ur` of "nurse".
 */
const CHECKED = new Set(['ɪ', 'ɛ', 'æ', 'ʌ', 'ʊ', 'ɒ', 'ʏ']);
function keepsConsonant(vowel: Sound, next: Sound): boolean {
  if (next.kind !== 'consonant' || !CHECKED.has(vowel.written)) return false;
  return !(vowel.ipa === 'ʌ' && next.ipa === 'ɹ');
}

function legalOnset(sounds: readonly Sound[]): boolean {
  if (sounds.length === 0) return true;
  if (sounds.some((sound) => sound.kind !== 'consonant')) return false;
  if (sounds.length === 1) return sounds[0]!.ipa !== 'ŋ';
  return ONSETS.has(sounds.map((sound) => sound.ipa).join(' '));
}

/** Modifier letters the key does not write (combining marks, tie bars included, are not written either). */
const MODIFIER_LETTERS = new Set([...'ʰʲˤʷˠⁿˀ']);

interface Segment {
  base: string;
  long: boolean;
  nasal: boolean;
}

/** A word's symbols as segments: a base letter with its length and nasality (other marks are not written). */
function segmentsOf(word: string): Array<Segment | 'ˈ' | 'ˌ' | '.'> {
  const out: Array<Segment | 'ˈ' | 'ˌ' | '.'> = [];
  for (const char of word.normalize('NFD')) {
    const last = out.at(-1);
    if (char === 'ˈ' || char === 'ˌ' || char === '.') out.push(char);
    else if (char === 'ː' || char === 'ˑ') {
      if (typeof last === 'object') last.long = true;
    } else if (char === '\u0303') {
      if (typeof last === 'object') last.nasal = true;
    } else if (/\p{M}/u.test(char) || MODIFIER_LETTERS.has(char)) {
      // Aspiration, palatalisation, dentals, syllabic marks and tie bars: not written in the key.
    } else out.push({ base: char === 'g' ? 'ɡ' : char, long: false, nasal: false });
  }
  return out;
}

function kindOf(ipa: string): Sound['kind'] {
  if (TONES.test(ipa)) return 'tone';
  return VOWEL_LETTERS.has([...ipa][0]!) ? 'vowel' : 'consonant';
}

/** One word of IPA (no spaces) as syllables. Throws `RespellingError` for a symbol the key lacks. */
export function syllablesOfWord(word: string): Syllable[] {
  const segments = segmentsOf(word);
  const sounds: Sound[] = [];
  /** Before which sound a stress mark or `.` stood. */
  const cuts = new Map<number, Stress | '.'>();
  let at = 0;
  while (at < segments.length) {
    const segment = segments[at]!;
    if (typeof segment === 'string') {
      cuts.set(sounds.length, segment === '.' ? '.' : segment === 'ˈ' ? 'primary' : 'secondary');
      at++;
      continue;
    }
    if (TONES.test(segment.base)) {
      sounds.push({ ipa: segment.base, written: segment.base, kind: 'tone', nasal: false });
      at++;
      continue;
    }
    let matched = 0;
    for (let size = Math.min(LONGEST, segments.length - at); size > 0 && matched === 0; size--) {
      const run = segments.slice(at, at + size);
      if (run.some((s) => typeof s === 'string')) continue;
      const letters = (run as Segment[]).map((s) => s.base).join('');
      const last = run.at(-1) as Segment;
      const written = last.long ? `${letters}ː` : letters;
      const row = KNOWN.get(written) ?? KNOWN.get(letters);
      if (row === undefined) continue;
      const nasal = (run as Segment[]).some((s) => s.nasal);
      sounds.push({ ipa: row, written, kind: kindOf(row), nasal });
      matched = size;
    }
    if (matched === 0) throw new RespellingError(`The respelling key has no letters for the IPA "${segment.base}"`, segment.base);
    at += matched;
  }
  return syllabify(sounds, cuts);
}

/**
 * Sounds cut into syllables; `cuts` holds the stress marks and `.` of written IPA by the index of
 * the sound they stood before (none for a dictionary's phones, whose stress comes with each vowel).
 */
export function syllabify(sounds: Sound[], cuts: ReadonlyMap<number, Stress | '.'> = new Map()): Syllable[] {
  const nuclei = sounds.flatMap((sound, index) => (sound.kind === 'vowel' ? [index] : []));
  if (nuclei.length === 0) return sounds.length === 0 ? [] : [{ sounds, stress: stressBefore(cuts, 0, sounds.length) }];
  const starts = [0];
  for (let k = 1; k < nuclei.length; k++) {
    const from = nuclei[k - 1]! + 1;
    const to = nuclei[k]!;
    // A `.`, or a stress mark before a consonant, cuts where it stands. A stress mark just before
    // the vowel says nothing about the cut: the speech engine writes its marks there.
    let start = -1;
    for (let index = from; index <= to; index++) {
      const mark = cuts.get(index);
      if (mark === '.' || (mark !== undefined && index < to)) start = index;
    }
    if (start === -1) {
      start = to;
      while (start > from && legalOnset(sounds.slice(start - 1, to))) start--;
      if (start === from && to > from && keepsConsonant(sounds[from - 1]!, sounds[from]!)) start++;
    }
    starts.push(start);
  }
  return starts.map((start, k) => {
    const end = starts[k + 1] ?? sounds.length;
    const nucleus = nuclei[k]!;
    return { sounds: sounds.slice(start, end), stress: stressBefore(cuts, k === 0 ? 0 : start, nucleus + 1) };
  });
}

function stressBefore(cuts: ReadonlyMap<number, Stress | '.'>, from: number, to: number): Stress {
  let stress: Stress = null;
  for (let index = from; index < to; index++) {
    const mark = cuts.get(index);
    if (mark === 'primary' || (mark === 'secondary' && stress === null)) stress = mark;
  }
  return stress;
}

/** IPA as words of syllables (spaces and hyphens separate words). */
export function syllablesOf(ipa: string): Syllable[][] {
  return ipa
    .normalize('NFC')
    .trim()
    .replace(/^[/[](.*)[/\]]$/su, '$1')
    .split(/[\s-]+/u)
    .filter((word) => word !== '')
    .map((word) => syllablesOfWord(word));
}

/** Syllables back to IPA, stress marks at the start of their syllable. */
export function ipaOfSyllables(words: readonly (readonly Syllable[])[]): string {
  return words
    .map((word) =>
      word
        .map(({ sounds, stress }) => {
          const mark = stress === 'primary' ? 'ˈ' : stress === 'secondary' ? 'ˌ' : '';
          return mark + sounds.map((sound) => sound.written).join('');
        })
        .join(''),
    )
    .join(' ');
}

/**
 * What the round trip keeps: the sounds of IPA as the key reads them (variants as their row) and
 * which vowel, counted from the start, has the main stress.
 */
export function comparable(ipa: string): { sounds: string; stressedVowel: number } {
  let vowel = 0;
  let stressedVowel = -1;
  const words = syllablesOf(ipa).map((word) =>
    word
      .map((syllable) => {
        if (syllable.stress === 'primary') stressedVowel = vowel;
        vowel += syllable.sounds.filter((sound) => sound.kind === 'vowel').length;
        return syllable.sounds.map((sound) => sound.ipa + (sound.nasal ? '\u0303' : '')).join('');
      })
      .join(''),
  );
  return { sounds: words.join(' '), stressedVowel };
}
