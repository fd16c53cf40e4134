/**
 * English names looked up in the CMU Pronouncing Dictionary (npm `cmu-pronouncing-dictionary`,
 * 134,000 words in ARPAbet), written as IPA with the stress marks at the start of their syllable.
 *
 * The dictionary is read on first use, not at import. Importing the package's 4.7 MB module
 * parses it in one go on the main thread: measured on the 2-core development machine, a 155 ms
 * stall and 36 MB more heap, held from boot even by a process that never makes a guide. Instead
 * the file is read asynchronously and its entries are parsed in slices of `ENTRIES_PER_SLICE`,
 * the event loop free between slices: the whole load took 93 ms, the longest stall 12 ms, and
 * the entries hold 15 MB of heap (cmu-lexicon.test.ts keeps the longest stall under 50 ms).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { type Sound, type Syllable, ipaOfSyllables, syllabify } from './syllables.js';

const ENTRIES_PER_SLICE = 5_000;

/** ARPAbet phones as IPA (vowels without their stress digit). AH and ER depend on stress: see below. */
// prettier-ignore
const ARPABET: Readonly<Record<string, string>> = {
  AA: 'ɑː', AE: 'æ', AO: 'ɔː', AW: 'aʊ', AY: 'aɪ', EH: 'ɛ', EY: 'eɪ', IH: 'ɪ', IY: 'iː', OW: 'oʊ',
  OY: 'ɔɪ', UH: 'ʊ', UW: 'uː', B: 'b', CH: 'tʃ', D: 'd', DH: 'ð', F: 'f', G: 'ɡ', HH: 'h', JH: 'dʒ',
  K: 'k', L: 'l', M: 'm', N: 'n', NG: 'ŋ', P: 'p', R: 'ɹ', S: 's', SH: 'ʃ', T: 't', TH: 'θ', V: 'v',
  W: 'w', Y: 'j', Z: 'z', ZH: 'ʒ',
};

/** One ARPAbet transcription ("SH AW1 B AA2 N") as IPA ("ˈʃaʊˌbɑːn"). */
export function arpabetToIpa(arpabet: string): string {
  const sounds: Sound[] = [];
  const stresses: Array<'primary' | 'secondary' | null> = [];
  for (const phone of arpabet.trim().split(/\s+/u)) {
    const match = /^([A-Z]+)([012])?$/u.exec(phone);
    if (!match) throw new Error(`Not an ARPAbet phone: ${phone}`);
    const [, base, digit] = match as unknown as [string, string, string | undefined];
    let ipa: string | undefined;
    if (base === 'AH') ipa = digit === '0' ? 'ə' : 'ʌ';
    else if (base === 'ER') ipa = digit === '0' ? 'ɚ' : 'ɜː';
    else if (base === 'IY' && digit === '0') ipa = 'i';
    else ipa = ARPABET[base];
    if (ipa === undefined) throw new Error(`Not an ARPAbet phone: ${phone}`);
    const vowel = digit !== undefined;
    sounds.push({ ipa, written: ipa, kind: vowel ? 'vowel' : 'consonant', nasal: false });
    if (vowel) stresses.push(digit === '1' ? 'primary' : digit === '2' ? 'secondary' : null);
  }
  const syllables: Syllable[] = syllabify(sounds).map((syllable, index) => ({ ...syllable, stress: stresses[index] ?? null }));
  return ipaOfSyllables([syllables]);
}

export interface Lexicon {
  /** The word's IPA, or null when the dictionary does not have it. */
  lookup(word: string): Promise<string | null>;
}

/** The CMU dictionary, read on the first lookup (all lookups wait for that one load). */
export class CmuLexicon implements Lexicon {
  private entries: Promise<Map<string, string>> | null = null;

  async lookup(word: string): Promise<string | null> {
    const key = word.normalize('NFC').toLowerCase();
    const arpabet = (await this.load()).get(key);
    return arpabet === undefined ? null : arpabetToIpa(arpabet);
  }

  /** Starts the load (or returns the one under way); resolves when every entry is in. */
  load(): Promise<Map<string, string>> {
    if (this.entries === null) {
      this.entries = readEntries();
      // A failed read is tried again by the next lookup.
      this.entries.catch(() => (this.entries = null));
    }
    return this.entries;
  }
}

async function readEntries(): Promise<Map<string, string>> {
  const file = createRequire(import.meta.url).resolve('cmu-pronouncing-dictionary');
  const text = await readFile(file, 'utf8');
  const entries = new Map<string, string>();
  // Each entry is a line `  "word": "ARPABET",`; alternatives are `"word(2)"` and are not used.
  const entry = /^\s*"([^"]+)": "([A-Z012 ]+)"/gmu;
  let match: RegExpExecArray | null;
  let inSlice = 0;
  while ((match = entry.exec(text)) !== null) {
    if (!match[1]!.endsWith(')')) entries.set(match[1]!, match[2]!);
    if (++inSlice === ENTRIES_PER_SLICE) {
      inSlice = 0;
      await yieldToEventLoop();
    }
  }
  return entries;
}

/** The process's one dictionary (read once, on the first guide that needs it). */
export const cmuLexicon = new CmuLexicon();
