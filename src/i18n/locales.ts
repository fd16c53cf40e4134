/**
 * The languages people who are not developers read voicename in (the record page, the player
 * page, e-mails), and how one is picked: the person's own language when the organiser set one
 * (their mail and record page), else, for a page, the browser's `Accept-Language`, then the
 * collection's default language, then English.
 */
import Negotiator from 'negotiator';

export const LOCALES = ['en', 'es', 'fr', 'de', 'zh-Hans', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';

/** The language tags a browser may send for each locale, best first (`zh-CN` reads zh-Hans). */
const TAGS: Record<Locale, string[]> = {
  en: ['en'],
  es: ['es'],
  fr: ['fr'],
  de: ['de'],
  'zh-Hans': ['zh-Hans', 'zh-CN', 'zh-SG', 'zh'],
  ar: ['ar'],
};
const LOCALE_OF_TAG = new Map<string, Locale>(
  LOCALES.flatMap((locale) => TAGS[locale].map((tag) => [tag.toLowerCase(), locale] as const)),
);

export const isLocale = (value: unknown): value is Locale =>
  typeof value === 'string' && (LOCALES as readonly string[]).includes(value);

/**
 * The locale a language tag reads as (`es-MX` → `es`, `zh-CN` → `zh-Hans`, any case), or null for
 * a language we have no catalogue for: how a person's own `language` is checked and stored.
 */
export function localeOfTag(tag: string): Locale | null {
  const lower = tag.trim().toLowerCase();
  return LOCALE_OF_TAG.get(lower) ?? LOCALE_OF_TAG.get(lower.split('-')[0] ?? '') ?? null;
}

/**
 * The locale for a page or mail: the best match of `Accept-Language` among ours, else the
 * collection's default, else English. A tag with a region we do not list (`es-MX`) falls back to
 * its language (`es`).
 */
export function negotiateLocale(acceptLanguage: string | undefined, fallback: string | null | undefined): Locale {
  const preferred = isLocale(fallback) ? fallback : DEFAULT_LOCALE;
  if (!acceptLanguage) return preferred;
  const requested = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages();
  for (const tag of requested) {
    const match = localeOfTag(tag);
    if (match) return match;
  }
  return preferred;
}

/**
 * The locale of a person's own page or mail: their `language` when set (the organiser knows it,
 * and a shared or borrowed browser may ask for another), else the browser's choice (pages only:
 * mail has no browser), else the collection's language.
 */
export const personLocale = (
  personLanguage: string | null | undefined,
  acceptLanguage: string | undefined,
  collectionLanguage: string | null | undefined,
): Locale => (isLocale(personLanguage) ? personLanguage : negotiateLocale(acceptLanguage, collectionLanguage));

/** `dir` for the `<html>` element: Arabic is written right to left. */
export const textDirection = (locale: Locale): 'ltr' | 'rtl' => (locale === 'ar' ? 'rtl' : 'ltr');

/** Each language's name in itself, for language pickers. */
export const LOCALE_NAMES: Record<Locale, string> = {
  en: 'English',
  es: 'Español',
  fr: 'Français',
  de: 'Deutsch',
  'zh-Hans': '简体中文',
  ar: 'العربية',
};

/** A calendar day (`YYYY-MM-DD`) written out the way the language writes dates, e.g. "12 December 2026". */
export const formatDay = (locale: Locale, day: string): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));
