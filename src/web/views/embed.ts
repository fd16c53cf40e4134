/**
 * The 200x40 embed widget `/p/<token>/embed`: a play/pause button and the name. Without
 * JavaScript the native `<audio controls>` shows instead (CSS swaps them when `embed.ts` runs).
 */
import { html, type SafeHtml } from '../html.js';

export interface EmbedData {
  displayName: string;
  playUrl: string;
  playLink: string;
  scriptUrl: string;
  styleUrl: string;
}

export function embedWidget(d: EmbedData): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<title>${`How to say ${d.displayName}`}</title>
<link rel="stylesheet" href="${d.styleUrl}">
</head>
<body>
<div class="w" role="group" aria-label="${`Name pronunciation of ${d.displayName}`}">
<button type="button" id="b" aria-label="${`Play pronunciation of ${d.displayName}`}" data-label-play="${`Play pronunciation of ${d.displayName}`}" data-label-pause="${`Pause pronunciation of ${d.displayName}`}"><span aria-hidden="true" id="i">&#9654;</span></button>
<a class="n" href="${d.playLink}" target="_blank" rel="noopener" title="${d.displayName}">${d.displayName}</a>
<audio id="a" controls preload="none" src="${d.playUrl}" aria-label="${`Pronunciation of ${d.displayName}`}"></audio>
</div>
<script src="${d.scriptUrl}" defer></script>
</body>
</html>
`;
}

export function embedNotFound(styleUrl: string): SafeHtml {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>Not found</title><link rel="stylesheet" href="${styleUrl}"></head>
<body><div class="w"><span class="n missing">Recording not found</span></div></body></html>
`;
}
