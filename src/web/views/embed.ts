/**
 * The 200x40 embed widget `/p/<token>/embed`: a play/pause button (in the collection's brand
 * colour when it has one) and the name, in the visitor's language. Without JavaScript the native `<audio controls>` shows instead (CSS swaps
 * them when `embed.ts` runs). Long names get smaller type and may take two lines; the full name
 * is always the link's tooltip (`title`) and the button's label, so nothing is lost when even
 * that does not fit.
 */
import type { Locale, Translate } from '../../i18n/index.js';
import { html, type SafeHtml } from '../html.js';

export interface EmbedData {
  locale: Locale;
  dir: 'ltr' | 'rtl';
  t: Translate;
  displayName: string;
  playUrl: string;
  playLink: string;
  scriptUrl: string;
  styleUrl: string;
  /** The collection's brand colour sheet (`brandStyleUrl`: it sets `--accent`, the button's colour), or null. */
  brandStyleUrl: string | null;
}

/** Type size class by length: what fits at 13 px bold in the widget's ~145 px name area. */
export function nameSizeClass(name: string): '' | 'long' | 'longer' {
  const length = [...name].length;
  if (length <= 17) return '';
  return length <= 24 ? 'long' : 'longer';
}

export function embedWidget(d: EmbedData): SafeHtml {
  const { t } = d;
  const size = nameSizeClass(d.displayName);
  return html`<!doctype html>
<html lang="${d.locale}" dir="${d.dir}">
<head>
<meta charset="utf-8">
<meta name="robots" content="noindex">
<title>${t('title', { name: d.displayName })}</title>
<link rel="stylesheet" href="${d.styleUrl}">
${d.brandStyleUrl ? html`<link rel="stylesheet" href="${d.brandStyleUrl}">\n` : ''}</head>
<body>
<div class="w" role="group" aria-label="${t('embed_group', { name: d.displayName })}">
<button type="button" id="b" aria-label="${t('embed_play', { name: d.displayName })}" data-label-play="${t('embed_play', { name: d.displayName })}" data-label-pause="${t('embed_pause', { name: d.displayName })}"><span aria-hidden="true" id="i">&#9654;</span></button>
<a class="${size ? `n ${size}` : 'n'}" href="${d.playLink}" target="_blank" rel="noopener" title="${d.displayName}">${d.displayName}</a>
<audio id="a" controls preload="none" src="${d.playUrl}" aria-label="${t('embed_audio', { name: d.displayName })}"></audio>
</div>
<script src="${d.scriptUrl}" defer></script>
</body>
</html>
`;
}

export function embedNotFound(d: { locale: Locale; dir: 'ltr' | 'rtl'; t: Translate; styleUrl: string }): SafeHtml {
  return html`<!doctype html>
<html lang="${d.locale}" dir="${d.dir}"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${d.t('embed_not_found')}</title><link rel="stylesheet" href="${d.styleUrl}"></head>
<body><div class="w"><span class="n missing">${d.t('embed_not_found')}</span></div></body></html>
`;
}
