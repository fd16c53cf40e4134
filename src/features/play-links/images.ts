/**
 * The pictures of a play link: its preview card (`/p/<token>/card.png`, the `og:image`) and its
 * e-mail signature badge (`/p/<token>/badge.png`). Both speak the collection's language, not
 * the visitor's: they are seen by whoever the link is shared with.
 */
import { type BadgeScale, type BadgeTheme, type Picture, previewCard, signatureBadge } from '../../cards/index.js';
import type { Deps } from '../../deps.js';
import { DEFAULT_LOCALE, isLocale, type Locale, textDirection, translator } from '../../i18n/index.js';
import type { ResolvedPlayLink } from './cache.js';

export const collectionLocale = (link: ResolvedPlayLink): Locale => (isLocale(link.language) ? link.language : DEFAULT_LOCALE);

export function playLinkCard(deps: Deps, link: ResolvedPlayLink): Picture {
  const locale = collectionLocale(link);
  const t = translator(locale, 'player');
  return previewCard(deps.cards.fonts, {
    direction: textDirection(locale),
    eyebrow: t('eyebrow'),
    name: link.displayName,
    phonetic: link.phoneticSpelling,
    detail: link.pronouns ? t('pronouns', { pronouns: link.pronouns }) : null,
    footer: translator(locale, 'common')('from_organisation', { organisation: link.organisation }),
  });
}

export function playLinkBadge(deps: Deps, link: ResolvedPlayLink, options: { theme: BadgeTheme; scale: BadgeScale }): Picture {
  const locale = collectionLocale(link);
  return signatureBadge(deps.cards.fonts, {
    label: translator(locale, 'player')('badge_label'),
    direction: textDirection(locale),
    ...options,
  });
}

/** The card's content-addressed URL: `?v=` names what it draws, so it may be cached for good. */
export const cardUrlOf = (deps: Deps, playLink: string, link: ResolvedPlayLink): string =>
  `${playLink}/card.png?v=${playLinkCard(deps, link).key}`;

/**
 * The signature HTML people paste into their e-mail program: the 2x badge shown at 1x size,
 * linked to the player page, with an alt text naming the person (in the collection's language).
 */
export function signatureHtmlOf(playLink: string, link: ResolvedPlayLink, escape: (text: string) => string): string {
  return signatureSnippet(playLink, link.displayName, collectionLocale(link), escape);
}

/** The signature badge's HTML for a play link: the 2x badge image, linked to the player page. */
export function signatureSnippet(
  playLink: string,
  displayName: string,
  locale: Locale,
  escape: (text: string) => string,
): string {
  const alt = translator(locale, 'player')('badge_alt', { name: displayName });
  return `<a href="${escape(playLink)}"><img src="${escape(playLink)}/badge.png?scale=2" width="180" height="40" alt="${escape(alt)}" style="border:0"></a>`;
}
