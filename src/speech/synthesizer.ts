/**
 * Text-to-speech behind one engine-neutral interface. An engine (`espeak.ts` is the default; the
 * `SPEECH_ENGINE` setting chooses, `index.ts` builds it) maps the neutral voice styles and BCP 47
 * languages below to its own voices, and speaks either text or phonemes.
 */

/**
 * The documented voice styles an agent may ask for (`voice_style`), each described by what a
 * listener hears, not by any engine's voice names: an engine picks its nearest voice for each.
 */
export const VOICE_STYLES = {
  neutral: {
    gender: 'any',
    pitch: 'medium',
    pace: 'measured',
    effect: 'none',
    description: 'The language default voice at a measured pace (the default).',
  },
  warm: { gender: 'male', pitch: 'low', pace: 'slow', effect: 'none', description: 'A lower, slower male voice.' },
  bright: { gender: 'female', pitch: 'high', pace: 'lively', effect: 'none', description: 'A higher, lively female voice.' },
  deep: { gender: 'male', pitch: 'lowest', pace: 'slow', effect: 'none', description: 'A deep male voice.' },
  female: { gender: 'female', pitch: 'medium', pace: 'measured', effect: 'none', description: 'A female voice.' },
  male: { gender: 'male', pitch: 'medium', pace: 'measured', effect: 'none', description: 'A male voice.' },
  robotic: {
    gender: 'any',
    pitch: 'medium',
    pace: 'measured',
    effect: 'robotic',
    description: 'A synthetic, robot-like voice.',
  },
  whisper: { gender: 'any', pitch: 'medium', pace: 'slow', effect: 'whisper', description: 'A whispered voice.' },
} as const satisfies Record<string, VoiceStyleTraits>;

export interface VoiceStyleTraits {
  gender: 'any' | 'female' | 'male';
  pitch: 'lowest' | 'low' | 'medium' | 'high';
  pace: 'slow' | 'measured' | 'lively';
  effect: 'none' | 'robotic' | 'whisper';
  /** Shown to people choosing a style (the dashboard) and to agents (the discovery document). */
  description: string;
}

export type VoiceStyle = keyof typeof VOICE_STYLES;
export const VOICE_STYLE_NAMES = Object.keys(VOICE_STYLES) as VoiceStyle[];

/**
 * What to speak: text, read with the language's spelling rules, or phonemes in the International
 * Phonetic Alphabet (a pronunciation guide's IPA, spoken as written rather than re-read as text).
 *
 * Phonemes are IPA symbols as Unicode (NFC or NFD), words separated by spaces, with `ˈ` (primary)
 * and `ˌ` (secondary) stress before the stressed syllable's vowel or onset and `ː` for length.
 * Slashes or brackets around the whole (`/…/`, `[…]`) are ignored; so are `.` syllable breaks.
 * Symbols the engine has no phoneme for in the chosen language are refused with
 * `UnknownPhonemesError`, before anything is spoken.
 */
export type SpeechInput = { text: string; phonemes?: undefined } | { phonemes: string; text?: undefined };

export type SpeechRequest = SpeechInput & {
  voiceStyle?: VoiceStyle | undefined;
  /** BCP 47 language (e.g. `en-GB`, `fr`, `zh`); unknown languages fall back to US English. */
  language?: string | undefined;
};

export interface SpeechResult {
  mp3: Buffer;
  durationMs: number;
  /** The engine's name for the voice it used, e.g. eSpeak NG's `en-us+f3`. */
  voice: string;
  /** What the engine says it spoke, in IPA (without stress marks), when it can tell. */
  spokenIpa?: string;
}

export interface SpeechSynthesizer {
  synthesize(request: SpeechRequest): Promise<SpeechResult>;
  /** Loads the engine ahead of its first use, if it has anything to load (in the background). */
  prepare?(): void;
  /** Loads the engine and runs it until it is as fast as it gets; resolves when done (never rejects). */
  warmUp?(): Promise<void>;
  /** Frees the engine (stops its worker thread). */
  close(): Promise<void>;
}

/** Text to IPA with the engine's own spelling-to-sound rules for the language. */
export interface Phonemizer {
  phonemize(request: { text: string; language?: string | undefined }): Promise<{ ipa: string; voice: string }>;
}

/** What `SPEECH_ENGINE` chooses: one implementation of both. */
export type SpeechEngine = SpeechSynthesizer & Phonemizer;

/** Phonemes the engine cannot speak in the language asked for: the caller's input is at fault (a 400). */
export class UnknownPhonemesError extends Error {
  constructor(
    readonly symbols: string[],
    readonly voice: string,
  ) {
    super(`No phoneme for ${symbols.map((symbol) => `"${symbol}"`).join(', ')} in the ${voice} voice`);
    this.name = 'UnknownPhonemesError';
  }
}
