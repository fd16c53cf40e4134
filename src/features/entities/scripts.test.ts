import { describe, expect, it } from 'vitest';
import { scriptsOf, speechLanguageFor, untrustedScriptMix } from './scripts.js';
import { isSlug, slugify, slugPath } from '../profiles/slug.js';

describe('slugify', () => {
  it('keeps the slugs Latin names always had', () => {
    expect(slugify('Siri Official')).toBe('siri-official');
    expect(slugify('  Ærø  Łódź!! ')).toBe('aero-lodz');
    expect(slugify('Straße 2000')).toBe('strasse-2000');
    expect(slugify('!!!')).toBe('');
  });

  it('keeps letters of every script, with the marks that belong to them', () => {
    expect(slugify('Алиса Помощник')).toBe('алиса-помощник');
    expect(slugify('小爱同学')).toBe('小爱同学');
    expect(slugify('ソフィア・ボット')).toBe('ソフィア-ボット');
    expect(slugify('مساعد ذكي')).toBe('مساعد-ذكي');
    expect(slugify('सहायक')).toBe('सहायक');
    expect(slugify('Ελένη')).toBe('ελενη');
  });

  it('makes slugs that are at most 120 characters and valid URL path segments', () => {
    const long = slugify('名'.repeat(150));
    expect([...long]).toHaveLength(120);
    expect(isSlug(long)).toBe(true);
    expect(isSlug('a--b')).toBe(false);
    expect(slugPath('алиса')).toBe('%D0%B0%D0%BB%D0%B8%D1%81%D0%B0');
    expect(new URL(`https://voicename.example/e/${slugPath('小爱同学')}`).pathname).toBe(
      '/e/%E5%B0%8F%E7%88%B1%E5%90%8C%E5%AD%A6',
    );
  });
});

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
    expect(speechLanguageFor('小爱同学')).toBe('cmn');
    expect(speechLanguageFor('ソフィア 秘書')).toBe('ja');
    expect(speechLanguageFor('مساعد')).toBe('ar');
    expect(speechLanguageFor('सहायक')).toBe('hi');
  });
});
