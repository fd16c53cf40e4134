/**
 * The speech seam: SPEECH_ENGINE chooses the engine at start (eSpeak NG by default), a name no
 * engine has stops the start with the variable's name, and an engine is one class implementing
 * `SpeechEngine` (the test-only fake here stands in for a second one).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { EspeakSynthesizer } from '../src/speech/espeak.js';
import { createSpeechSynthesizer, SPEECH_ENGINES } from '../src/speech/index.js';
import { FakeSpeech } from './helpers/fake-speech.js';

describe('SPEECH_ENGINE', () => {
  it('defaults to eSpeak NG', async () => {
    const config = loadConfig({ NODE_ENV: 'test' });
    expect(config.speechEngine).toBe('espeak');
    const engine = createSpeechSynthesizer(config);
    expect(engine).toBeInstanceOf(EspeakSynthesizer);
    await engine.close();
  });

  it('refuses an engine it does not have, naming the setting and the choices', () => {
    expect(() => loadConfig({ NODE_ENV: 'test', SPEECH_ENGINE: 'polly' })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: 'test', SPEECH_ENGINE: 'polly' })).toThrow('SPEECH_ENGINE must be espeak, got "polly"');
  });

  it('builds the engine the config names: a second engine is one class and one entry', async () => {
    const engines = { ...SPEECH_ENGINES, fake: () => new FakeSpeech() };
    const engine = createSpeechSynthesizer({ speechEngine: 'fake' }, engines);
    expect(engine).toBeInstanceOf(FakeSpeech);
    const { ipa } = await engine.phonemize({ text: 'Ana', language: 'es' });
    const spoken = await engine.synthesize({ phonemes: ipa, voiceStyle: 'warm', language: 'es' });
    expect(spoken).toMatchObject({ voice: 'fake', spokenIpa: 'ana' });
    expect((await engine.synthesize({ text: 'Ana' })).mp3.length).toBeGreaterThan(0);
  });
});
