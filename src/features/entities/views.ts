/**
 * The public profile page `/e/<slug>` and its machine-readable twin `service.json`. Every value
 * an agent supplied is escaped by the `html` tag; JSON-LD goes through `jsonForScript`; links and
 * images are only emitted for https: URLs or paths on this site. The page has no script at all.
 */
import { html, jsonForScript, type SafeHtml } from '../../web/html.js';
import type { EntitiesContext } from './context.js';
import { avatarUrlOf, type EntityRow } from './service.js';

const TYPE_LABELS: Record<string, string> = {
  ai_agent: 'AI agent',
  bot: 'Bot',
  humanoid_robot: 'Humanoid robot',
  voice_assistant: 'Voice assistant',
  avatar: 'Avatar',
  meeting_assistant: 'Meeting assistant',
  digital_receptionist: 'Digital receptionist',
  brand_mascot: 'Brand mascot',
};

/** An https: URL or a site path as an absolute URL; anything else is dropped. */
export function safeUrl(context: EntitiesContext, value: string | null): string | null {
  if (!value) return null;
  if (/^\/(?![/\\])/.test(value)) return `${context.urls.site}${value}`;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export const parseMetadata = (entity: EntityRow): Record<string, unknown> | null =>
  entity.external_metadata === null ? null : (JSON.parse(entity.external_metadata) as Record<string, unknown>);

export function machineReadableProfile(context: EntitiesContext, entity: EntityRow) {
  const { urls } = context;
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
    avatar_url: safeUrl(context, avatarUrlOf(context, entity)) ?? urls.defaultAvatar(),
    source_url: safeUrl(context, entity.source_url),
    agent_id: entity.agent_id,
    external_metadata: parseMetadata(entity),
    created_via: entity.created_via,
    claim: {
      state: entity.claim_state,
      verification: entity.verification_state,
      claimed: entity.claim_state === 'claimed',
      verified: entity.verification_state === 'verified',
      claimed_at: entity.claimed_at,
    },
    audio: { url: urls.audio(entity.slug), content_type: 'audio/mpeg', duration_ms: entity.audio_duration_ms },
    links: { profile: urls.profile(entity.slug), machine_readable: urls.machineReadable(entity.slug), discovery: urls.discovery },
    created_at: entity.created_at,
  };
}

export function profilePage(context: EntitiesContext, entity: EntityRow): SafeHtml {
  const { urls } = context;
  const profileUrl = urls.profile(entity.slug);
  const avatar = safeUrl(context, avatarUrlOf(context, entity)) ?? urls.defaultAvatar();
  const source = safeUrl(context, entity.source_url);
  const metadata = parseMetadata(entity);
  const typeLabel = TYPE_LABELS[entity.entity_type] ?? entity.entity_type;
  const summary = entity.intro || entity.description;
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'SoftwareApplication',
    name: entity.name,
    applicationCategory: typeLabel,
    description: entity.description,
    url: profileUrl,
    image: avatar,
    ...(source ? { sameAs: source } : {}),
    creator: { '@type': 'Organization', name: entity.operator },
    audio: { '@type': 'AudioObject', contentUrl: urls.audio(entity.slug), encodingFormat: 'audio/mpeg' },
    dateCreated: entity.created_at,
  };
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${entity.name} · ${typeLabel} by ${entity.operator}</title>
<meta name="description" content="${summary}">
${entity.visibility === 'unlisted' ? html`<meta name="robots" content="noindex, nofollow">` : html`<link rel="canonical" href="${profileUrl}">`}
<meta property="og:type" content="profile">
<meta property="og:title" content="${entity.name}">
<meta property="og:description" content="${summary}">
<meta property="og:url" content="${profileUrl}">
<meta property="og:image" content="${avatar}">
<meta property="og:audio" content="${urls.audio(entity.slug)}">
<meta property="og:audio:type" content="audio/mpeg">
<link rel="alternate" type="application/json" href="${urls.machineReadable(entity.slug)}">
<link rel="stylesheet" href="${context.assets.url('entity-profile.css')}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="application/ld+json">${jsonForScript(jsonLd)}</script>
</head>
<body>
<main>
<header>
<img src="${avatar}" alt="Avatar of ${entity.name}" width="96" height="96" referrerpolicy="no-referrer">
<div>
<h1 id="entity-name">${entity.name}</h1>
<p class="meta"><span id="entity-type">${typeLabel}</span> · operated by <span id="entity-operator">${entity.operator}</span></p>
${
  entity.claim_state === 'claimed'
    ? html`<span class="badge verified" id="claim-badge" title="Claimed on ${entity.claimed_at?.slice(0, 10) ?? ''} by a person who proved control of the agent">✓ Claimed · Verified</span>`
    : html`<span class="badge" id="claim-badge">Unclaimed · Unverified</span>`
}
</div>
</header>
<audio controls preload="none" src="${urls.audio(entity.slug)}">Your browser cannot play audio: <a href="${urls.audio(entity.slug)}">download the name as MP3</a>.</audio>
${entity.intro ? html`<p id="entity-intro"><strong>${entity.intro}</strong></p>` : ''}
<p id="entity-description">${entity.description}</p>
${source ? html`<p>Homepage: <a id="entity-source" href="${source}" rel="nofollow noopener noreferrer ugc">${source}</a></p>` : ''}
${metadata ? html`<details id="entity-metadata"><summary>Metadata</summary><pre>${JSON.stringify(metadata, null, 2)}</pre></details>` : ''}
<footer>Created by an agent through the voicename API on ${entity.created_at.slice(0, 10)}. ${
    entity.claim_state === 'claimed'
      ? `Claimed and verified on ${entity.claimed_at?.slice(0, 10) ?? ''} by a person who proved control of the agent.`
      : 'This profile has not been claimed by a person.'
  } <a href="${urls.machineReadable(entity.slug)}">Machine-readable profile</a></footer>
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
