/**
 * The order a person's names are said and written in. Most files list a given name and a
 * family name in separate columns, and the default display name puts the given name first
 * ("Wei Zhang"); Chinese, Japanese, Korean, Hungarian and Vietnamese names say the family name
 * first ("Zhang Wei", 张伟). The order is not stored: a display name that is the family-first
 * composition of the person's names is read as that order (by the guide and by later edits).
 */

export const NAME_ORDERS = ['given_first', 'family_first'] as const;
export type NameOrder = (typeof NAME_ORDERS)[number];

/** Languages whose names are said family name first (BCP 47 primary subtags). */
export const FAMILY_FIRST_LANGUAGES = ['zh', 'ja', 'ko', 'hu', 'vi'] as const;

/** Letters of the scripts that write names without a space between family and given name. */
const EAST_ASIAN_LETTER = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;

/** Whether every letter of `name` (and there is one) is Han, Kana or Hangul. */
export function isEastAsianScript(name: string): boolean {
  const letters = [...name].filter((char) => /\p{L}/u.test(char));
  return letters.length > 0 && letters.every((char) => EAST_ASIAN_LETTER.test(char));
}

/** Whether any letter of `name` is Han, Kana or Hangul. */
export const hasEastAsianLetters = (name: string) => [...name].some((char) => EAST_ASIAN_LETTER.test(char));

/**
 * The display name made from the given (first) and family (last) name: the first name alone for
 * people with one name; family first with `family_first`, joined without a space when both are
 * written in Han, Kana or Hangul (张 + 伟 → 张伟; Zhang + Wei → "Zhang Wei").
 */
export function composeDisplayName(first: string, last: string, order: NameOrder = 'given_first'): string {
  const given = first.trim();
  const family = last.trim();
  if (family === '') return given.slice(0, 200);
  if (order === 'given_first') return `${given} ${family}`.slice(0, 200);
  const separator = isEastAsianScript(given) && isEastAsianScript(family) ? '' : ' ';
  return `${family}${separator}${given}`.slice(0, 200);
}

/** The order `display` was composed in from these names: `family_first` only when it is that composition. */
export function nameOrderOf(display: string, first: string, last: string): NameOrder {
  const familyFirst = composeDisplayName(first, last, 'family_first');
  return display === familyFirst && display !== composeDisplayName(first, last) ? 'family_first' : 'given_first';
}

/** Whether `display` is one of the default compositions of these names (either order). */
export const isDefaultDisplayName = (display: string, first: string, last: string) =>
  display === composeDisplayName(first, last, nameOrderOf(display, first, last));

/**
 * Whether a name looks family-name-first: written in Han, Kana or Hangul, or marked with a
 * language that says the family name first (`zh`, `ja`, `ko`, `hu`, `vi`, any region or script).
 */
export function looksFamilyNameFirst(name: { first: string; last: string; languages: (string | null | undefined)[] }): boolean {
  if (hasEastAsianLetters(name.first) || hasEastAsianLetters(name.last)) return true;
  return name.languages.some((language) => {
    const primary = language?.trim().toLowerCase().split(/[-_]/)[0];
    return primary !== undefined && (FAMILY_FIRST_LANGUAGES as readonly string[]).includes(primary);
  });
}
