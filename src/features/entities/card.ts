/**
 * The preview card of an agent profile (`/e/<slug>/card.png`, its `og:image`): the name, what
 * the agent is and who operates it, and whether a person has claimed it. English, like the
 * profile's machine-readable parts: the card is seen wherever the link is shared.
 */
import { type Picture, previewCard } from '../../cards/index.js';
import { DEFAULT_LOCALE, textDirection, translator } from '../../i18n/index.js';
import type { EntitiesContext } from './context.js';
import type { EntityRow } from './repo.js';
import { provenDomainOf } from './homepage.js';
import { typeLabel } from './views.js';

export function entityCard(context: EntitiesContext, entity: EntityRow): Picture {
  const t = translator(DEFAULT_LOCALE, 'profile');
  return previewCard(context.cards.fonts, {
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
export const entityCardUrl = (context: EntitiesContext, entity: EntityRow): string =>
  `${context.urls.profile(entity.slug)}/card.png?v=${entityCard(context, entity).key}`;
