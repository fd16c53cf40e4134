/**
 * The public profile page `/e/<slug>` and its machine-readable twin `service.json`. Every value
 * an agent supplied is escaped by the `html` tag; JSON-LD goes through `jsonForScript`; links and
 * images are only emitted for https: URLs or paths on this site. The page has no script at all.
 * It speaks the visitor's language (`Accept-Language`, else English); its link preview image is
 * the profile's card (`/e/<slug>/card.png`, card.ts), since social sites refuse SVG avatars.
 * Under the name, its pronunciation guide: the respelling to read aloud, and the IPA small.
 */
import { DEFAULT_LOCALE, negotiateLocale, textDirection, type Translate, translator } from '../../i18n/index.js';
import { html, jsonForScript, type SafeHtml, SLOT, withSlot } from '../../web/html.js';
import type { Deps } from '../../deps.js';
import { provenDomainOf } from './homepage.js';
import { agentApiUrls } from '../agent-api/urls.js';
import { avatarUrlOf, type EntityRow } from './service.js';
import { profileUrls } from './urls.js';

/** The entity type in the page's language (an unknown type is shown as stored). */
export function typeLabel(t: Translate, entityType: string): string {
  const label = t(`type_${entityType}`);
  return label === `type_${entityType}` ? entityType : label;
}

/** An https: URL or a site path as an absolute URL; anything else is dropped. */
export function safeUrl(deps: Deps, value: string | null): string | null {
  if (!value) return null;
  if (/^\/(?![/\\])/.test(value)) return `${profileUrls(deps).site}${value}`;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export const parseMetadata = (entity: EntityRow): Record<string, unknown> | null =>
  entity.external_metadata === null ? null : (JSON.parse(entity.external_metadata) as Record<string, unknown>);

/** The name's pronunciation guide for machines: null when the profile has none (published before guides, or nothing to say). */
export function pronunciationOf(entity: EntityRow) {
  if (entity.guide_ipa === null || entity.guide_respelling === null || entity.guide_language === null) return null;
  return {
    ipa: entity.guide_ipa,
    respelling: entity.guide_respelling,
    language: entity.guide_language,
    language_suggested: entity.guide_language_suggested === 1,
  };
}

export function machineReadableProfile(deps: Deps, entity: EntityRow) {
  const urls = profileUrls(deps);
  return {
    name: entity.name,
    slug: entity.slug,
    entity_type: entity.entity_type,
    description: entity.description,
    operator: entity.operator,
    intro: entity.intro ?? '',
    visibility: entity.visibility,
    voice_style: entity.voice_style ?? 'neutral',
    language: entity.language,
    pronunciation: pronunciationOf(entity),
    avatar_url: safeUrl(deps, avatarUrlOf(deps, entity)) ?? urls.defaultAvatar(),
    source_url: safeUrl(deps, entity.source_url),
    agent_id: entity.agent_id,
    external_metadata: parseMetadata(entity),
    created_via: entity.created_via,
    claim: {
      state: entity.claim_state,
      verification: entity.verification_state,
      claimed: entity.claim_state === 'claimed',
      verified: entity.verification_state === 'verified',
      claimed_at: entity.claimed_at,
      verified_domain: provenDomainOf(entity),
    },
    audio: { url: urls.audio(entity.slug), content_type: 'audio/mpeg', duration_ms: entity.audio_duration_ms },
    links: {
      profile: urls.profile(entity.slug),
      machine_readable: urls.machineReadable(entity.slug),
      discovery: agentApiUrls(deps).discovery,
    },
    created_at: entity.created_at,
  };
}

/** The profile page's language: the visitor's, else English. */
export function profileLanguage(acceptLanguage: string | undefined) {
  const locale = negotiateLocale(acceptLanguage, DEFAULT_LOCALE);
  return { locale, dir: textDirection(locale), t: translator(locale, 'profile') };
}

export function profilePage(
  deps: Deps,
  entity: EntityRow,
  page: ReturnType<typeof profileLanguage> & { cardUrl: string },
): SafeHtml {
  const urls = profileUrls(deps);
  const { t } = page;
  const profileUrl = urls.profile(entity.slug);
  const avatar = safeUrl(deps, avatarUrlOf(deps, entity)) ?? urls.defaultAvatar();
  const source = safeUrl(deps, entity.source_url);
  const metadata = parseMetadata(entity);
  const type = typeLabel(t, entity.entity_type);
  const summary = entity.intro || entity.description;
  const title = t('title', { name: entity.name, type, operator: entity.operator });
  const cardAlt = t('listen', { name: entity.name });
  const claimedOn = entity.claimed_at?.slice(0, 10) ?? '';
  const domain = provenDomainOf(entity);
  const guide = pronunciationOf(entity);
  const jsonLd = {
    '@deps': 'https://schema.org',
    '@type': 'SoftwareApplication',
    name: entity.name,
    applicationCategory: typeLabel(translator(DEFAULT_LOCALE, 'profile'), entity.entity_type),
    description: entity.description,
    url: profileUrl,
    image: avatar,
    ...(source ? { sameAs: source } : {}),
    creator: { '@type': 'Organization', name: entity.operator },
    audio: { '@type': 'AudioObject', contentUrl: urls.audio(entity.slug), encodingFormat: 'audio/mpeg' },
    dateCreated: entity.created_at,
  };
  return html`<!doctype html>
<html lang="${page.locale}" dir="${page.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<meta name="description" content="${summary}">
${entity.visibility === 'unlisted' ? html`<meta name="robots" content="noindex, nofollow">` : html`<link rel="canonical" href="${profileUrl}">`}
<meta property="og:type" content="profile">
<meta property="og:site_name" content="voicename">
<meta property="og:title" content="${entity.name}">
<meta property="og:description" content="${summary}">
<meta property="og:url" content="${profileUrl}">
<meta property="og:locale" content="${page.locale.replace('-', '_')}">
<meta property="og:image" content="${page.cardUrl}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="${cardAlt}">
<meta property="og:audio" content="${urls.audio(entity.slug)}">
<meta property="og:audio:type" content="audio/mpeg">
<meta name="twitter:card" content="summary_large_image">
${deps.config.twitterSite ? html`<meta name="twitter:site" content="${deps.config.twitterSite}">` : ''}
<meta name="twitter:title" content="${entity.name}">
<meta name="twitter:description" content="${summary}">
<meta name="twitter:image" content="${page.cardUrl}">
<meta name="twitter:image:alt" content="${cardAlt}">
<link rel="alternate" type="application/json" href="${urls.machineReadable(entity.slug)}">
<link rel="alternate" type="application/json+oembed" href="${urls.oembed(entity.slug)}" title="${entity.name}">
<link rel="stylesheet" href="${deps.assets.url('entity-profile.css')}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="application/ld+json">${jsonForScript(jsonLd)}</script>
</head>
<body>
<main>
<header>
<img src="${avatar}" alt="${t('avatar_alt', { name: entity.name })}" width="96" height="96" referrerpolicy="no-referrer">
<div>
<h1 id="entity-name">${entity.name}</h1>
<p class="meta"><span id="entity-type">${type}</span> · ${withSlot(t('operated_by', { operator: SLOT }), html`<span id="entity-operator">${entity.operator}</span>`)}</p>
${
  entity.claim_state !== 'claimed'
    ? html`<span class="badge" id="claim-badge">${t('unclaimed_badge')}</span>`
    : domain
      ? html`<span class="badge verified" id="claim-badge" title="${t('domain_title', { domain, date: (entity.domain_verified_at ?? '').slice(0, 10) })}">${t('domain_badge', { domain })}</span>`
      : html`<span class="badge claimed" id="claim-badge" title="${t('claimed_title', { date: claimedOn })}">${t('claimed_badge')}</span>`
}
</div>
</header>
${
  guide
    ? html`<p class="pronunciation" id="entity-pronunciation"><span class="visually-hidden">${t('pronunciation')}: </span><span class="respelling" id="entity-respelling" lang="en">${guide.respelling}</span> <span class="ipa" id="entity-ipa" lang="und-fonipa" title="${t('ipa_title')}">/${guide.ipa}/</span></p>`
    : ''
}
<audio controls preload="none" src="${urls.audio(entity.slug)}" aria-label="${cardAlt}">${t('no_audio')} <a href="${urls.audio(entity.slug)}">${t('download_mp3')}</a>.</audio>
${entity.intro ? html`<p id="entity-intro"><strong>${entity.intro}</strong></p>` : ''}
<p id="entity-description">${entity.description}</p>
${source ? html`<p>${withSlot(t('homepage', { url: SLOT }), html`<a id="entity-source" href="${source}" rel="nofollow noopener noreferrer ugc">${source}</a>`)}</p>` : ''}
${metadata ? html`<details id="entity-metadata"><summary>${t('metadata')}</summary><pre>${JSON.stringify(metadata, null, 2)}</pre></details>` : ''}
<footer>${t('created', { date: entity.created_at.slice(0, 10) })} ${
    entity.claim_state === 'claimed' ? t('claimed_footer', { date: claimedOn }) : t('unclaimed_footer')
  } <a href="${urls.machineReadable(entity.slug)}">${t('machine_readable')}</a></footer>
</main>
</body>
</html>`;
}

/** CSP directives of the profile page: no script; avatars from any https: host; our own audio and styles. */
export const PROFILE_CSP = [
  "default-src 'none'",
  "img-src 'self' https: data:",
  "media-src 'self'",
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
];

export function gonePage(slug: string): SafeHtml {
  return html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Profile deleted</title></head><body><main><h1>Profile deleted</h1><p>The profile ${slug} was deleted by its creator.</p></main></body></html>`;
}
