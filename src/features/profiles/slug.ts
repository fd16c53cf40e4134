/**
 * Profile slugs. Letters and digits of every script are kept (an IRI path segment, sent
 * percent-encoded: `/e/%D0%B0%D0%BB%D0%B8%D1%81%D0%B0` for "Алиса"); Latin, Greek and Cyrillic
 * lose their accents and are lower-cased; every run of other characters is one hyphen; at most
 * 120 characters. Latin names keep the slugs they always had.
 */
const FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', þ: 'th', ł: 'l', ı: 'i' };
const MAX_SLUG_CHARACTERS = 120;

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    // Accents come off the alphabets that readers expect without them in an address; in other
    // scripts the marks are part of the letters (Devanagari vowel signs, Arabic harakat).
    .replace(/([\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}])\p{M}+/gu, '$1')
    .normalize('NFC')
    .toLowerCase()
    .replace(/[ßæœøđðþłı]/g, (c) => FOLDS[c] ?? c)
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return [...slug].slice(0, MAX_SLUG_CHARACTERS).join('').replace(/-+$/, '');
}

const SLUG_PATTERN = /^[\p{L}\p{M}\p{N}]+(-[\p{L}\p{M}\p{N}]+)*$/u;

/** Whether `value` is a slug (what `slugify` makes), checked before any lookup by slug. */
export const isSlug = (value: string): boolean => SLUG_PATTERN.test(value) && [...value].length <= MAX_SLUG_CHARACTERS;

/** A slug as a URL path segment. */
export const slugPath = (slug: string): string => encodeURIComponent(slug);
