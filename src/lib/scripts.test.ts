import { describe, expect, it } from 'vitest';
import { scriptsOf, speechLanguageFor, untrustedScriptMix } from './scripts.js';

describe('scripts', () => {
  it('finds the scripts of the letters only', () => {
    expect(scriptsOf('R2-D2 助手')).toEqual(['Latin', 'Han']);
    expect(scriptsOf('123 !')).toEqual([]);
  });

  it('refuses look-alike mixes and allows one script or Latin with Chinese, Japanese or Korean', () => {
    expect(untrustedScriptMix('\u041erbit')).toEqual(['Cyrillic', 'Latin']);
    expect(untrustedScriptMix('Pay\u0440al')).toEqual(['Latin', 'Cyrillic']);
    expect(untrustedScriptMix('Orbit')).toBeNull();
    expect(untrustedScriptMix('Алиса')).toBeNull();
    expect(untrustedScriptMix('GPT 助手')).toBeNull();
    expect(untrustedScriptMix('ソフィア AI 秘書')).toBeNull();
    expect(untrustedScriptMix('한국 AI 비서')).toBeNull();
    expect(untrustedScriptMix('Ελένη Bot')).toEqual(['Greek', 'Latin']);
  });

  it('reads a name in a voice of its script', () => {
    expect(speechLanguageFor('Orbit')).toBeUndefined();
    expect(speechLanguageFor('Алиса')).toBe('ru');
    expect(speechLanguageFor('小爱同学')).toBe('zh');
    expect(speechLanguageFor('ソフィア 秘書')).toBe('ja');
    expect(speechLanguageFor('مساعد')).toBe('ar');
    expect(speechLanguageFor('सहायक')).toBe('hi');
  });
});
