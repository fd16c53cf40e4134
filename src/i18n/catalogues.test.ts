import { describe, expect, it } from 'vitest';
import { CATALOGUES } from './catalogues.js';
import { LOCALES, negotiateLocale, textDirection, translator } from './index.js';

const PLURAL = /_(zero|one|two|few|many|other)$/;
const baseKey = (key: string): string => key.replace(PLURAL, '');
const placeholders = (text: string): string[] => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1] as string).sort();

describe('message catalogues', () => {
  for (const [namespace, byLocale] of Object.entries(CATALOGUES)) {
    const english = byLocale.en as Record<string, string>;
    for (const locale of LOCALES) {
      const catalogue = byLocale[locale] as Record<string, string>;
      it(`${namespace}/${locale} has every English message, with the same placeholders`, () => {
        const missing = [...new Set(Object.keys(english).map(baseKey))].filter(
          (key) => !Object.keys(catalogue).some((own) => baseKey(own) === key),
        );
        expect(missing).toEqual([]);
        for (const [key, text] of Object.entries(english)) {
          if (PLURAL.test(key) || catalogue[key] === undefined) continue;
          expect(placeholders(catalogue[key]), `${namespace}/${locale}: ${key}`).toEqual(placeholders(text));
        }
      });
      it(`${namespace}/${locale} has a form for each of the language's plural categories`, () => {
        const categories = new Intl.PluralRules(locale).resolvedOptions().pluralCategories;
        const plurals = [
          ...new Set(
            Object.keys(english)
              .filter((k) => PLURAL.test(k))
              .map(baseKey),
          ),
        ];
        for (const key of plurals) {
          for (const category of categories) expect(catalogue, `${key}_${category}`).toHaveProperty(`${key}_${category}`);
        }
      });
    }
  }
});

describe('translator', () => {
  it('uses the plural rules of the language', () => {
    expect(translator('en', 'common')('seconds', { count: 1 })).toBe('1 second');
    expect(translator('en', 'common')('seconds', { count: 5 })).toBe('5 seconds');
    expect(translator('ar', 'common')('seconds', { count: 2 })).toBe('ثانيتان');
    expect(translator('ar', 'common')('seconds', { count: 3 })).toBe('3 ثوانٍ');
  });

  it('does not escape: views escape what they interpolate', () => {
    expect(translator('en', 'common')('from_organisation', { organisation: '<b>&' })).toBe('From <b>&');
  });
});

describe('negotiateLocale', () => {
  it("prefers the browser's language among ours, then the collection's default, then English", () => {
    expect(negotiateLocale('fr-CA,fr;q=0.9,en;q=0.5', 'de')).toBe('fr');
    expect(negotiateLocale('es-MX', 'en')).toBe('es');
    expect(negotiateLocale('zh-CN,zh;q=0.9', 'en')).toBe('zh-Hans');
    expect(negotiateLocale('ja,ko;q=0.8', 'de')).toBe('de');
    expect(negotiateLocale(undefined, 'ar')).toBe('ar');
    expect(negotiateLocale('ja', 'xx')).toBe('en');
    expect(negotiateLocale('en;q=0.1,ar;q=0.9', 'en')).toBe('ar');
  });

  it('gives Arabic a right-to-left direction', () => {
    expect(textDirection('ar')).toBe('rtl');
    expect(textDirection('zh-Hans')).toBe('ltr');
  });
});
