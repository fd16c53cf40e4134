/**
 * The public mini player page `/p/<token>`. Works without JavaScript (the native `<audio
 * controls>` and read-only share fields); `player.ts` in the browser adds the big play button,
 * replay, the 0.75x toggle and copy buttons. Link previews come from Open Graph, Twitter player
 * tags and the oEmbed discovery link.
 */
import { html, type SafeHtml } from '../html.js';

export interface PlayerPageData {
  displayName: string;
  preferredName: string | null;
  pronouns: string | null;
  phoneticSpelling: string | null;
  durationSeconds: number;
  playLink: string;
  playUrl: string;
  embedUrl: string;
  embedHtml: string;
  oembedUrl: string;
  qrUrl: string;
  mimeType: string;
  allowIndexing: boolean;
  scriptUrl: string;
  styleUrl: string;
}

const secs = (n: number) => `${n} second${n === 1 ? '' : 's'}`;

/** "Goes by Bob · Pronouns: he/him", either part alone, or nothing (a preferred name equal to the shown name adds nothing). */
function personDetails(d: PlayerPageData): SafeHtml | '' {
  const preferred =
    d.preferredName && d.preferredName.toLocaleLowerCase() !== d.displayName.toLocaleLowerCase() ? d.preferredName : null;
  if (!preferred && !d.pronouns) return '';
  return html`<p class="person-details">${preferred ? html`<span class="preferred">Goes by <strong>${preferred}</strong></span>` : ''}${
    preferred && d.pronouns ? html`<span aria-hidden="true"> · </span>` : ''
  }${d.pronouns ? html`<span class="pronouns">Pronouns: ${d.pronouns}</span>` : ''}</p>`;
}

export function playerPage(d: PlayerPageData): SafeHtml {
  const title = `How to say ${d.displayName}`;
  const description = d.phoneticSpelling
    ? `Hear ${d.displayName} say their name (${d.phoneticSpelling}).`
    : `Hear ${d.displayName} say their name.`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${d.allowIndexing ? '' : html`<meta name="robots" content="noindex">`}
<meta name="description" content="${description}">
<link rel="canonical" href="${d.playLink}">
<link rel="alternate" type="application/json+oembed" href="${d.oembedUrl}" title="${title}">
<meta property="og:type" content="website">
<meta property="og:site_name" content="voicename">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${d.playLink}">
<meta property="og:audio" content="${d.playUrl}">
${d.playUrl.startsWith('https:') ? html`<meta property="og:audio:secure_url" content="${d.playUrl}">` : ''}
<meta property="og:audio:type" content="${d.mimeType}">
<meta name="twitter:card" content="player">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
<meta name="twitter:player" content="${d.embedUrl}">
<meta name="twitter:player:width" content="200">
<meta name="twitter:player:height" content="40">
<meta name="twitter:player:stream" content="${d.playUrl}">
<meta name="twitter:player:stream:content_type" content="${d.mimeType}">
<link rel="stylesheet" href="${d.styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<p class="eyebrow">How to say</p>
<h1 id="name">${d.displayName}</h1>
${personDetails(d)}
${d.phoneticSpelling ? html`<p class="phonetic" aria-label="Phonetic spelling">${d.phoneticSpelling}</p>` : ''}
<div class="controls" id="controls" hidden>
<button type="button" class="play" id="play" aria-label="${`Play ${d.displayName}`}" data-label-play="${`Play ${d.displayName}`}" data-label-pause="Pause"><span aria-hidden="true" class="icon">&#9654;</span></button>
<button type="button" class="secondary" id="replay">Replay</button>
<button type="button" class="secondary" id="slow" aria-pressed="false">Slow (0.75x)</button>
</div>
<audio id="audio" controls preload="none" src="${d.playUrl}" aria-label="${`Recording of ${d.displayName}`}">
<a href="${d.playUrl}">Download the recording</a>
</audio>
<p class="duration">Duration: <time datetime="${`PT${d.durationSeconds}S`}">${secs(d.durationSeconds)}</time></p>
<section class="share" aria-labelledby="share-title">
<h2 id="share-title">Share</h2>
<label for="link-field">Link</label>
<div class="row"><input id="link-field" type="text" readonly value="${d.playLink}"><button type="button" class="copy" data-copy="link-field" hidden>Copy link</button></div>
<label for="embed-field">Embed code</label>
<div class="row"><textarea id="embed-field" readonly rows="3">${d.embedHtml}</textarea><button type="button" class="copy" data-copy="embed-field" hidden>Copy embed code</button></div>
<figure class="qr"><img src="${d.qrUrl}" alt="${`QR code of the link to ${d.displayName}'s recording`}" width="160" height="160"><figcaption>Scan to listen</figcaption></figure>
</section>
</main>
<script src="${d.scriptUrl}" defer></script>
</body>
</html>
`;
}

/** The same page for unknown and removed tokens: nothing tells them apart. */
export function playLinkNotFoundPage(styleUrl: string): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Recording not found</title>
<link rel="stylesheet" href="${styleUrl}">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
</head>
<body>
<main class="card">
<h1>Recording not found</h1>
<p>This play link does not exist or is no longer available.</p>
</main>
</body>
</html>
`;
}
