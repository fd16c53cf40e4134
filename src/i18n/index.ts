/**
 * Message catalogues and plural rules (i18next). One namespace per surface (`recorder`, `player`,
 * `mail`, `common`), one catalogue file per language under `messages/<namespace>/<locale>.ts`.
 * Views ask for a translator and interpolate its plain strings into `html` templates, which
 * escape them; i18next's own escaping is off so nothing is escaped twice.
 *
 * Plurals follow i18next's keys (`item_one`, `item_other`, and Arabic's `_zero`, `_two`, `_few`,
 * `_many`), resolved with `Intl.PluralRules` for the locale.
 */
import i18next, { type TOptions } from 'i18next';
import { CATALOGUES, type Namespace } from './catalogues.js';
import { DEFAULT_LOCALE, LOCALES, type Locale } from './locales.js';

export {
  DEFAULT_LOCALE,
  LOCALES,
  LOCALE_NAMES,
  formatDay,
  isLocale,
  localeOfTag,
  negotiateLocale,
  personLocale,
  textDirection,
  type Locale,
} from './locales.js';
export type { Namespace } from './catalogues.js';

const resources = Object.fromEntries(
  LOCALES.map((locale) => [
    locale,
    Object.fromEntries(Object.entries(CATALOGUES).map(([namespace, byLocale]) => [namespace, byLocale[locale]])),
  ]),
);

const instance = i18next.createInstance();
void instance.init({
  resources,
  lng: DEFAULT_LOCALE,
  fallbackLng: DEFAULT_LOCALE,
  supportedLngs: [...LOCALES],
  // Keep 'zh-Hans' whole: without this i18next would also look up 'zh'.
  load: 'currentOnly',
  ns: Object.keys(CATALOGUES),
  defaultNS: 'common',
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** Variables a message may interpolate (`{{name}}`) and `count` for plurals. */
export type MessageVariables = Record<string, string | number>;
export type Translate = (key: string, variables?: MessageVariables) => string;

/** A translator for one locale and namespace: `t('title', { name })`. */
export function translator(locale: Locale, namespace: Namespace): Translate {
  const fixed = instance.getFixedT(locale, namespace);
  return (key, variables) => fixed(key, variables as TOptions);
}
