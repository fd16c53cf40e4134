/**
 * Every namespace's catalogues, by locale. A new surface adds its folder under `messages/` and
 * one line here; `src/i18n/catalogues.test.ts` checks every language has every English key.
 */
import type { Locale } from './locales.js';
import { chat } from './messages/chat/index.js';
import { common } from './messages/common/index.js';
import { mail } from './messages/mail/index.js';
import { player } from './messages/player/index.js';
import { profile } from './messages/profile/index.js';
import { recorder } from './messages/recorder/index.js';

/** A catalogue: message key → text with `{{variable}}` placeholders. */
export type Catalogue = Readonly<Record<string, string>>;

export const CATALOGUES = {
  chat,
  common,
  mail,
  player,
  profile,
  recorder,
} satisfies Record<string, Record<Locale, Catalogue>>;

export type Namespace = keyof typeof CATALOGUES;
