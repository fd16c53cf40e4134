/**
 * The public mini player page `/p/<token>`, in the visitor's language (`Accept-Language`, else
 * the collection's). It leads with what a listener needs: the name, its phonetic spelling, the
 * name the person goes by and their pronouns, play and slow play. Sharing (link, embed code, QR
 * code, e-mail signature badge) waits behind a "Share" disclosure. Works without JavaScript
 * (the native `<audio controls>`, read-only share fields, `<details>`); `player.ts` adds the big
 * play button, replay, the 0.75x toggle and copy buttons. Link previews come from Open Graph and
 * Twitter tags (the 1200x630 card image) and the oEmbed discovery link.
 */
import type { Locale, Translate } from '../../i18n/index.js';
import { html, isolate, type SafeHtml, SLOT, withSlot } from '../html.js';

export interface PlayerPageData {
  locale: Locale;
  dir: 'ltr' | 'rtl';
  t: Translate;
  /** The `common` namespace (plurals of seconds, "From …"). */
  tc: Translate;
  displayName: string;
  preferredName: string | null;
  pronouns: string | null;
  phoneticSpelling: string | null;
  /** Who the link comes from: the collection's organisation (or its name). */
  organisation: string;
  /** The collection's logo, or null. */
  logoUrl: string | null;
  /** The brand colour's style sheet (after the page's own, it sets `--accent`), or null. */
  brandStyleUrl: string | null;
  durationSeconds: number;
  playLink: string;
  playUrl: string;
  embedUrl: string;
  embedHtml: string;
  oembedUrl: string;
  qrUrl: string;
  /** The preview card's content-addressed URL (`og:image`), 1200x630. */
  cardUrl: string;
  badgeUrl: string;
  signatureHtml: string;
  /** `@handle` of `twitter:site`, when configured. */
  twitterSite: string | null;
  mimeType: string;
  allowIndexing: boolean;
  scriptUrl: string;
  styleUrl: string;
}

/** "Goes by Bob · Pronouns: he/him", either part alone, or nothing (a preferred name equal to the shown name adds nothing). */
function personDetails(d: PlayerPageData): SafeHtml | '' {
  const preferred =
    d.preferredName && d.preferredName.toLocaleLowerCase() !== d.displayName.toLocaleLowerCase() ? d.preferredName : null;
  if (!preferred && !d.pronouns) return '';
  return html`<p class="person-details">${
    preferred
      ? html`<span class="preferred">${withSlot(d.t('goes_by', { name: SLOT }), html`<strong><bdi>${preferred}</bdi></strong>`)}</span>`
      : ''
  }${preferred && d.pronouns ? html`<span aria-hidden="true"> · </span>` : ''}${
    d.pronouns
      ? html`<span class="pronouns">${withSlot(d.t('pronouns', { pronouns: SLOT }), html`<bdi>${d.pronouns}</bdi>`)}</span>`
      : ''
  }</p>`;
}

function linkPreviewTags(d: PlayerPageData, title: string, description: string): SafeHtml {
  return html`<meta property="og:type" content="website">
<meta property="og:site_name" content="voicename">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${d.playLink}">
<meta property="og:locale" content="${d.locale.replace('-', '_')}">
<meta property="og:image" content="${d.cardUrl}">
${d.cardUrl.startsWith('https:') ? html`<meta property="og:image:secure_url" content="${d.cardUrl}">` : ''}
<meta property="og:image:type" content="image/png">
<meta property="og:image:width" content="1200">
<meta property="og:image:height" content="630">
<meta property="og:image:alt" content="${title}">
<meta property="og:audio" content="${d.playUrl}">
${d.playUrl.startsWith('https:') ? html`<meta property="og:audio:secure_url" content="${d.playUrl}">` : ''}
<meta property="og:audio:type" content="${d.mimeType}">
<meta name="twitter:card" content="summary_large_image">
${d.twitterSite ? html`<meta name="twitter:site" content="${d.twitterSite}">` : ''}
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<meta name="twitter:image" content="${d.cardUrl}">
<meta name="twitter:image:alt" content="${title}">
<meta name="twitter:player" content="${d.embedUrl}">
<meta name="twitter:player:width" content="200">
<meta name="twitter:player:height" content="40">
<meta name="twitter:player:stream" content="${d.playUrl}">
<meta name="twitter:player:stream:content_type" content="${d.mimeType}">`;
}

function shareSection(d: PlayerPageData): SafeHtml {
  const { t } = d;
  const copied = t('copied');
  return html`<details class="share" id="share">
<summary>${t('share')}</summary>
<label for="link-field">${t('link')}</label>
<div class="row"><input id="link-field" type="text" readonly value="${d.playLink}"><button type="button" class="copy" data-copy="link-field" data-label-copied="${copied}" hidden>${t('copy_link')}</button></div>
<label for="embed-field">${t('embed_code')}</label>
<div class="row"><textarea id="embed-field" readonly rows="3">${d.embedHtml}</textarea><button type="button" class="copy" data-copy="embed-field" data-label-copied="${copied}" hidden>${t('copy_embed')}</button></div>
<figure class="qr"><img src="${d.qrUrl}" alt="${t('qr_alt', { name: d.displayName })}" width="160" height="160"><figcaption>${t('scan')}</figcaption></figure>
<section class="signature" aria-labelledby="signature-title">
<h2 id="signature-title">${t('signature_title')}</h2>
<p id="signature-help">${t('signature_help')}</p>
<p class="badge-preview"><img src="${d.badgeUrl}" width="180" height="40" alt="${t('badge_alt', { name: d.displayName })}"></p>
<label for="signature-field">${t('signature_html')}</label>
<div class="row"><textarea id="signature-field" readonly rows="4" aria-describedby="signature-help">${d.signatureHtml}</textarea><button type="button" class="copy" data-copy="signature-field" data-label-copied="${copied}" hidden>${t('copy_signature')}</button></div>
</section>
</details>`;
}

export function playerPage(d: PlayerPageData): SafeHtml {
  const { t, tc } = d;
  const name = isolate(d.displayName, d.dir);
  const title = t('title', { name });
  const description = d.phoneticSpelling
    ? t('description_phonetic', { name, phonetic: isolate(d.phoneticSpelling, d.dir) })
    : t('description', { name });
  const duration = html`<time datetime="${`PT${d.durationSeconds}S`}">${tc('seconds', { count: d.durationSeconds })}</time>`;
  return html`<!doctype html>
<html lang="${d.locale}" dir="${d.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${d.allowIndexing ? '' : html`<meta name="robots" content="noindex">`}
<meta name="description" content="${description}">
<link rel="canonical" href="${d.playLink}">
<link rel="alternate" type="application/json+oembed" href="${d.oembedUrl}" title="${title}">
${linkPreviewTags(d, title, description)}
<link rel="stylesheet" href="${d.styleUrl}">
${d.brandStyleUrl ? html`<link rel="stylesheet" href="${d.brandStyleUrl}">\n` : ''}<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<p class="eyebrow">${t('eyebrow')}</p>
<h1 id="name" dir="auto">${d.displayName}</h1>
${d.phoneticSpelling ? html`<p class="phonetic"><span class="visually-hidden">${t('phonetic_label')}: </span><bdi>${d.phoneticSpelling}</bdi></p>` : ''}
${personDetails(d)}
<div class="controls" id="controls" hidden>
<button type="button" class="play" id="play" aria-label="${t('play', { name })}" data-label-play="${t('play', { name })}" data-label-pause="${t('pause')}"><span aria-hidden="true" class="icon">&#9654;</span></button>
<button type="button" class="secondary" id="replay">${t('replay')}</button>
<button type="button" class="secondary" id="slow" aria-pressed="false">${t('slow')}</button>
</div>
<audio id="audio" controls preload="none" src="${d.playUrl}" aria-label="${t('recording_of', { name })}">
<a href="${d.playUrl}">${t('download')}</a>
</audio>
<p class="duration">${withSlot(t('duration', { duration: SLOT }), duration)}</p>
<p class="from" id="from">${d.logoUrl ? html`<img class="logo" src="${d.logoUrl}" alt="" height="32"> ` : ''}${withSlot(tc('from_organisation', { organisation: SLOT }), html`<bdi>${d.organisation}</bdi>`)}</p>
${shareSection(d)}
</main>
<script src="${d.scriptUrl}" defer></script>
</body>
</html>
`;
}

/** The same page for unknown and removed tokens: nothing tells them apart. */
export function playLinkNotFoundPage(d: { locale: Locale; dir: 'ltr' | 'rtl'; t: Translate; styleUrl: string }): SafeHtml {
  return html`<!doctype html>
<html lang="${d.locale}" dir="${d.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${d.t('not_found_title')}</title>
<link rel="stylesheet" href="${d.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<h1>${d.t('not_found_title')}</h1>
<p>${d.t('not_found_body')}</p>
</main>
</body>
</html>
`;
}
