/**
 * The preview card of an agent profile (`/e/<slug>/card.png`, its `og:image`): the name, what
 * the agent is and who operates it, and whether a person has claimed it. English, like the
 * profile's machine-readable parts: the card is seen wherever the link is shared.
 */
import { type Picture, previewCard } from '../../cards/index.js';
import { DEFAULT_LOCALE, textDirection, translator } from '../../i18n/index.js';
import type { Deps } from '../../deps.js';
import type { EntityRow } from './service.js';
import { profileUrls } from './urls.js';
import { provenDomainOf } from './homepage.js';
import { typeLabel } from './views.js';

export function entityCard(deps: Deps, entity: EntityRow): Picture {
  const t = translator(DEFAULT_LOCALE, 'profile');
  return previewCard(deps.cards.fonts, {
    direction: textDirection(DEFAULT_LOCALE),
    eyebrow: t('eyebrow'),
    name: entity.name,
    phonetic: null,
    detail: t('card_detail', { type: typeLabel(t, entity.entity_type), operator: entity.operator }),
    footer:
      entity.claim_state !== 'claimed'
        ? null
        : provenDomainOf(entity)
          ? t('domain_badge', { domain: provenDomainOf(entity) as string })
          : t('claimed_badge'),
  });
}

/** The card's content-addressed URL. */
export const entityCardUrl = (deps: Deps, entity: EntityRow): string =>
  `${profileUrls(deps).profile(entity.slug)}/card.png?v=${entityCard(deps, entity).key}`;
