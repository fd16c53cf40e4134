import { describe, expect, it } from 'vitest';
import { ESPEAK_STYLES, espeakLanguageFor } from './espeak.js';
import { ipaTable, ipaToEspeak, normalizeIpa } from './espeak-phonemes.js';
import { VOICE_STYLE_NAMES, VOICE_STYLES } from './synthesizer.js';

describe('neutral voice styles in eSpeak NG', () => {
  it('keeps the documented style names and gives each an eSpeak voice', () => {
    expect(VOICE_STYLE_NAMES).toEqual(['neutral', 'warm', 'bright', 'deep', 'female', 'male', 'robotic', 'whisper']);
    expect(Object.keys(ESPEAK_STYLES)).toEqual(VOICE_STYLE_NAMES);
  });

  it('speaks each style as it sounded before the styles were engine-neutral', () => {
    expect(ESPEAK_STYLES).toEqual({
      neutral: { variant: null, pitch: 50, rate: 160 },
      warm: { variant: 'm3', pitch: 40, rate: 150 },
      bright: { variant: 'f4', pitch: 65, rate: 170 },
      deep: { variant: 'm1', pitch: 25, rate: 145 },
      female: { variant: 'f3', pitch: 55, rate: 160 },
      male: { variant: 'm2', pitch: 45, rate: 160 },
      robotic: { variant: 'robosoft', pitch: 50, rate: 155 },
      whisper: { variant: 'whisper', pitch: 50, rate: 145 },
    });
  });

  it('matches the neutral description: female styles use female variants, male ones male, lower pitch for lower styles', () => {
    for (const name of VOICE_STYLE_NAMES) {
      const { gender, effect } = VOICE_STYLES[name];
      const { variant } = ESPEAK_STYLES[name];
      if (gender === 'female') expect(variant).toMatch(/^f\d$/);
      if (gender === 'male') expect(variant).toMatch(/^m\d$/);
      if (effect !== 'none') expect(variant).toBe(effect === 'robotic' ? 'robosoft' : 'whisper');
    }
    expect(ESPEAK_STYLES.deep.pitch).toBeLessThan(ESPEAK_STYLES.warm.pitch);
    expect(ESPEAK_STYLES.warm.pitch).toBeLessThan(ESPEAK_STYLES.neutral.pitch);
    expect(ESPEAK_STYLES.bright.pitch).toBeGreaterThan(ESPEAK_STYLES.neutral.pitch);
  });

  it('maps BCP 47 languages to eSpeak voices', () => {
    expect(espeakLanguageFor('zh')).toBe('cmn');
    expect(espeakLanguageFor('zh-Hant-HK')).toBe('yue');
    expect(espeakLanguageFor('en')).toBe('en-us');
    expect(espeakLanguageFor('en_GB')).toBe('en-gb');
    expect(espeakLanguageFor('fr')).toBe('fr');
    expect(espeakLanguageFor(undefined)).toBeNull();
    expect(espeakLanguageFor(' ')).toBeNull();
  });
});

describe('IPA to eSpeak mnemonics', () => {
  // A slice of the French inventory as the worker reports it (vowels with eSpeak's stress mark).
  const french = ipaTable([
    { mnemonic: 'f', ipa: 'f' },
    { mnemonic: 'r', ipa: 'ʁ' },
    { mnemonic: 'r/', ipa: 'ʁ' },
    { mnemonic: 'A~', ipa: 'ˈɑ̃' },
    { mnemonic: 's', ipa: 's' },
    { mnemonic: 'w', ipa: 'w' },
    { mnemonic: 'a', ipa: 'ˈa' },
    { mnemonic: 't', ipa: 't' },
    { mnemonic: 'S', ipa: 'ʃ' },
    { mnemonic: 'tS', ipa: 'tʃ' },
    { mnemonic: 'a-', ipa: 'ˈa-' },
    { mnemonic: 'n2', ipa: '' },
  ]);

  it('reads the longest IPA sequence the voice has, with stress marks', () => {
    expect(ipaToEspeak('fʁɑ̃swˈa', french)).toEqual({ text: "[[frA~sw'a]]" });
    expect(ipaToEspeak('tʃa ta', french)).toEqual({ text: '[[tSa ta]]' });
    expect(ipaToEspeak('ˌaːˈa', french)).toEqual({ text: "[[,a:'a]]" });
  });

  it('prefers the shortest mnemonic and skips eSpeak-only notations', () => {
    expect(french.get('ʁ')).toBe('r');
    expect(french.has('a-')).toBe(false);
    expect(french.has('')).toBe(false);
  });

  it('accepts IPA as people type it', () => {
    expect(normalizeIpa(' /fʁa\u0303.swa/ ')).toBe('fʁ\u00e3swa');
    expect(normalizeIpa("[ˈɡa:  'ga]")).toBe('ˈɡaː ˈɡa');
  });

  it('names every symbol it has no phoneme for, once, with its combining marks', () => {
    expect(ipaToEspeak('ʘaʘ ɛ̃', french)).toEqual({ unknown: ['ʘ', 'ɛ̃'] });
  });
});

describe('ipaTable', () => {
  it('reads a nasal vowel eSpeak reports decomposed as the composed one a person types', () => {
    const table = ipaTable([{ mnemonic: 'u~', ipa: 'u\u0303' }]);
    expect(ipaToEspeak('ʒˈũ', table)).toEqual({ unknown: ['ʒ'] });
    expect(ipaToEspeak('ũ', table)).toEqual({ text: '[[u~]]' });
  });
});
