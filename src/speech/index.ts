import type { Config } from '../config.js';
import { EspeakSynthesizer } from './espeak.js';
import type { SpeechEngine } from './synthesizer.js';

export type { SpeechEngine } from './synthesizer.js';

/**
 * The engines `SPEECH_ENGINE` may name. A second engine is one file implementing `SpeechEngine`
 * (its own map of the neutral voice styles and of BCP 47 languages to its voices) and a line here.
 */
export const SPEECH_ENGINES: Record<string, () => SpeechEngine> = {
  /** eSpeak NG as WebAssembly in a worker thread (the default). */
  espeak: () => new EspeakSynthesizer(),
};

/** The engine the config chooses (its name was checked when the config was read). */
export function createSpeechSynthesizer(
  config: Pick<Config, 'speechEngine'>,
  engines: Record<string, () => SpeechEngine> = SPEECH_ENGINES,
): SpeechEngine {
  const create = engines[config.speechEngine];
  if (!create) throw new Error(`No speech engine named "${config.speechEngine}"`);
  return create();
}
