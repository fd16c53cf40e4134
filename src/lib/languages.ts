/**
 * BCP 47 language tags as people give them ("EN-gb", "zh-hans") in their canonical form
 * ("en-GB", "zh-Hans"), the form stored and compared. The schema's pattern admits only the shape
 * of a tag; `Intl` knows the rest (it refuses "en-xx-yy-zz" style nonsense the pattern lets by).
 */
export function canonicalLanguage(tag: string | null | undefined): string | null {
  const trimmed = tag?.trim();
  if (!trimmed) return null;
  try {
    return Intl.getCanonicalLocales(trimmed)[0] ?? null;
  } catch {
    return null;
  }
}

/** True when `tag` is a language tag `canonicalLanguage` can keep. */
export const isLanguageTag = (tag: string): boolean => canonicalLanguage(tag) !== null;
