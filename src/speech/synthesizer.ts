/**
 * Text-to-speech behind one interface. The default engine is eSpeak NG compiled to WebAssembly
 * (`espeak.ts`), run in a worker thread so synthesis never blocks the request thread.
 */

/**
 * The documented voice styles an agent may ask for (`voice_style`), each an eSpeak NG voice
 * variant with a pitch (0-99) and speaking rate (words per minute).
 */
export const VOICE_STYLES = {
  neutral: { variant: null, pitch: 50, rate: 160, description: 'The language default voice at a measured pace (the default).' },
  warm: { variant: 'm3', pitch: 40, rate: 150, description: 'A lower, slower male voice.' },
  bright: { variant: 'f4', pitch: 65, rate: 170, description: 'A higher, lively female voice.' },
  deep: { variant: 'm1', pitch: 25, rate: 145, description: 'A deep male voice.' },
  female: { variant: 'f3', pitch: 55, rate: 160, description: 'A female voice.' },
  male: { variant: 'm2', pitch: 45, rate: 160, description: 'A male voice.' },
  robotic: { variant: 'robosoft', pitch: 50, rate: 155, description: 'A synthetic, robot-like voice.' },
  whisper: { variant: 'whisper', pitch: 50, rate: 145, description: 'A whispered voice.' },
} as const;

export type VoiceStyle = keyof typeof VOICE_STYLES;
export const VOICE_STYLE_NAMES = Object.keys(VOICE_STYLES) as VoiceStyle[];

export interface SpeechRequest {
  text: string;
  voiceStyle?: VoiceStyle | undefined;
  /** BCP 47 language hint (e.g. `en-GB`, `fr`); unknown languages fall back to US English. */
  language?: string | undefined;
}

export interface SpeechResult {
  mp3: Buffer;
  durationMs: number;
  /** The eSpeak voice actually used, e.g. `en-us+f3`. */
  voice: string;
}

export interface SpeechSynthesizer {
  synthesize(request: SpeechRequest): Promise<SpeechResult>;
  /** Loads the engine ahead of its first use, if it has anything to load. */
  prepare?(): void;
  /** Frees the engine (stops its worker thread). */
  close(): Promise<void>;
}
