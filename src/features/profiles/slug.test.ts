import { describe, expect, it } from 'vitest';
import { isSlug, slugify, slugPath } from './slug.js';

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
