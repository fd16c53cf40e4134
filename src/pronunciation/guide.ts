/**
 * A person's pronunciation guide made from the written name: IPA and the English-reader
 * respelling, part by part. Each word of the given and family names (hyphenated names word by
 * word) is read in its own language: English from the dictionaries first and eSpeak NG's
 * English spelling rules second, any other language by that language's spelling rules. The
 * person then tunes and approves the guide; this only proposes it.
 */
import { speechLanguageFor } from '../lib/scripts.js';
import type { Phonemizer } from '../speech/synthesizer.js';
import { cmuLexicon, type Lexicon } from './cmu-lexicon.js';
import { cleanEngineIpa } from './engine-ipa.js';
import { nameLexicon } from './name-lexicon.js';
import { ipaToRespelling, RespellingError } from './respelling-key.js';

export interface GuidePart {
  text: string;
  language: string;
  ipa: string;
  method: 'dictionary' | 'rules';
}

export interface GeneratedGuide {
  ipa: string;
  respelling: string;
  /**
   * The language to speak the whole guide in: the one all its parts share (a French name eSpeak
   * reads as English is English), else the name's, else the first part's.
   */
  language: string;
  parts: GuidePart[];
}

export interface GuideLanguages {
  name?: string | null;
  given?: string | null;
  family?: string | null;
}

export interface GuideOptions {
  /** English dictionaries, looked up in order (default: the hand-checked names, then CMU); [] uses rules only. */
  lexicons?: readonly Lexicon[];
  /** Say the family name first (as the person's display name does: "Zhang Wei"); default given first. */
  familyFirst?: boolean;
}

const DEFAULT_LEXICONS: readonly Lexicon[] = [nameLexicon, cmuLexicon];

/** Titles and suffixes that are not said as part of the name (compared without dots, any case). */
const NOT_SAID = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'prof',
  'professor',
  'sir',
  'dame',
  'rev',
  'jr',
  'sr',
  'phd',
  'md',
  'esq',
]);

/**
 * The language of a name from its script alone (Han → zh, Hangul → ko, kana → ja, Arabic → ar,
 * Cyrillic → ru, Devanagari → hi…); null for Latin script, whose spelling says too little
 * about a name's language to guess.
 */
export function suggestLanguage(name: string): string | null {
  return speechLanguageFor(name) ?? null;
}

/** The words of a name as said: NFC, titles and suffixes gone, punctuation that is not part of a name gone, hyphenated names split. */
export function nameWords(text: string): string[] {
  return (
    text
      .normalize('NFC')
      // Letters, combining marks, apostrophes inside a name (O'Brien) and hyphens stay; the rest is a space.
      .replace(/[^\p{L}\p{M}'’\-\s]/gu, ' ')
      .split(/[\s-]+/u)
      .map((word) => word.replace(/^['’]+|['’]+$/gu, ''))
      .filter((word) => word !== '' && !NOT_SAID.has(word.toLowerCase()))
  );
}

function isEnglish(language: string): boolean {
  return /^en(?:$|[-_])/iu.test(language);
}

async function guidePart(
  phonemizer: Phonemizer,
  text: string,
  language: string,
  lexicons: readonly Lexicon[],
): Promise<GuidePart> {
  if (isEnglish(language)) {
    for (const lexicon of lexicons) {
      const ipa = await lexicon.lookup(text);
      if (ipa !== null) return { text, language, ipa, method: 'dictionary' };
    }
  }
  const spoken = cleanEngineIpa((await phonemizer.phonemize({ text, language })).ipa, language);
  return { text, language: spoken.language, ipa: spoken.ipa, method: 'rules' };
}

/**
 * The respelling of a part's IPA. A symbol the key has no letters for (an engine's own notation)
 * is left out of the respelling rather than failing the guide; the IPA keeps it.
 */
function respell(ipa: string, language: string): string {
  let readable = ipa;
  for (let attempt = 0; attempt < 8; attempt++) {
    try {
      return ipaToRespelling(readable, language);
    } catch (error) {
      if (!(error instanceof RespellingError)) throw error;
      readable = readable.replaceAll(error.part, '');
    }
  }
  return '';
}

/**
 * Proposes a guide for `name`. A part's language is its own (`given`, `family`), else the name's,
 * else one suggested by the part's script, else English. Throws a RangeError when nothing in the
 * name is said (only titles or punctuation).
 */
export async function generateGuide(
  phonemizer: Phonemizer,
  name: { given: string; family: string },
  languages: GuideLanguages,
  options: GuideOptions = {},
): Promise<GeneratedGuide> {
  const lexicons = options.lexicons ?? DEFAULT_LEXICONS;
  const given = nameWords(name.given).map((text) => ({ text, own: languages.given }));
  const family = nameWords(name.family).map((text) => ({ text, own: languages.family }));
  const words = options.familyFirst ? [...family, ...given] : [...given, ...family];
  if (words.length === 0) throw new RangeError('The name has no letters to say');
  const parts = await Promise.all(
    words.map(({ text, own }) => {
      const language = own || languages.name || suggestLanguage(text) || 'en';
      return guidePart(phonemizer, text, language, lexicons);
    }),
  );
  const shared = parts.every((part) => part.language === parts[0]!.language) ? parts[0]!.language : null;
  return {
    ipa: parts.map((part) => part.ipa).join(' '),
    respelling: parts.map((part) => respell(part.ipa, part.language)).join(' '),
    language: shared || languages.name || parts[0]!.language,
    parts,
  };
}
