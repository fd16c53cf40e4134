/** eSpeak's own notation taken out of a guide's IPA, so the engine speaks the guide back; and the Portuguese rules. */
import { afterAll, describe, expect, it } from 'vitest';
import { EspeakSynthesizer } from '../speech/espeak.js';
import { cleanEngineIpa } from './engine-ipa.js';

const engine = new EspeakSynthesizer();
afterAll(() => engine.close());

describe('cleanEngineIpa', () => {
  it('turns a word eSpeak read as English into an English part', () => {
    expect(cleanEngineIpa('(en)ˈɑːθə(fr)', 'fr')).toEqual({ ipa: 'ˈɑːθə', language: 'en' });
  });

  it('drops eSpeak’s tone notation in Chinese and Vietnamese, and its in-word syllable marks', () => {
    expect(cleanEngineIpa('wˈɑɜŋ wˈei2', 'zh')).toEqual({ ipa: 'wˈɑŋ wˈei', language: 'zh' });
    expect(cleanEngineIpa('ts.ˈɑ5ŋ', 'zh').ipa).toBe('tsˈɑŋ');
    expect(cleanEngineIpa('xˈe-ɜɲ', 'vi').ipa).toBe('xˈeɲ');
    // ɜ is a vowel of its own outside the tone languages.
    expect(cleanEngineIpa('bˈɛkɜ', 'de').ipa).toBe('bˈɛkɜ');
  });

  it('says Portuguese ei as ɐj and reduces an e before the stress', () => {
    expect(cleanEngineIpa('fˌeʁˈeɪɾɐ', 'pt').ipa).toBe('fˌɨʁˈɐjɾɐ');
    expect(cleanEngineIpa('tˈeɾɐ', 'pt').ipa).toBe('tˈeɾɐ');
    expect(cleanEngineIpa('ʒuˈɐ̃ʊ̃', 'pt').ipa).toBe('ʒuˈɐ̃ʊ');
  });

  it.each([
    ['zh', '王伟'],
    ['zh', '陈'],
    ['vi', 'Khánh'],
    ['pt', 'Ferreira'],
    ['pt', 'João'],
    ['fr', 'Arthur'],
  ])('%s: the cleaned IPA of %s is spoken by the engine', async (language, name) => {
    const cleaned = cleanEngineIpa((await engine.phonemize({ text: name, language })).ipa, language);
    const spoken = await engine.synthesize({ phonemes: cleaned.ipa, language: cleaned.language });
    expect(spoken.durationMs).toBeGreaterThan(100);
  });
});
