import { EspeakSynthesizer } from './espeak.js';
import type { SpeechSynthesizer } from './synthesizer.js';

export type { SpeechSynthesizer } from './synthesizer.js';

/** The default engine: eSpeak NG as WebAssembly in a worker thread. */
export function createSpeechSynthesizer(): SpeechSynthesizer {
  return new EspeakSynthesizer();
}
