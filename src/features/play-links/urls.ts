import { escapeHtml } from '../../web/html.js';

/** The player page of a play link, `{BASE_URL}/p/<token>` (alone, where the other URLs are not needed). */
export const playLinkUrl = (baseUrl: string, token: string): string => `${baseUrl}/p/${token}`;

/** The public URLs of a play link, as the spec spells them. Shared by every feature that shows one. */
export function playLinkUrls(baseUrl: string, token: string) {
  const playLink = playLinkUrl(baseUrl, token);
  return {
    play_link: playLink,
    play_url: `${playLink}.mp3`,
    embed_url: `${playLink}/embed`,
  };
}

/**
 * The spec's `embed_html`: its iframe with exactly the spec's `src`, `width`, `height` and
 * `frameborder`, plus a `title` naming the person (screen readers announce a frame by its title;
 * axe's `frame-title` rule). English, like the rest of the API's strings.
 */
export const embedHtmlOf = (baseUrl: string, token: string, displayName: string): string =>
  `<iframe src="${playLinkUrls(baseUrl, token).embed_url}" width="200" height="40" frameborder="0" title="${escapeHtml(`How to say ${displayName}`)}"></iframe>`;

/** The oEmbed endpoint's URL for one play link. */
export function oembedUrlFor(baseUrl: string, playLink: string): string {
  return `${baseUrl}/oembed?url=${encodeURIComponent(playLink)}&format=json`;
}

/** Token of a play link URL of ours (`{BASE_URL}/p/<token>`, `/embed` and `.mp3` too), or null. */
export function tokenFromPlayLinkUrl(baseUrl: string, raw: string): string | null {
  let url: URL;
  let base: URL;
  try {
    url = new URL(raw);
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.host !== base.host || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const prefix = base.pathname.replace(/\/+$/, '');
  const match = /^\/p\/([A-Za-z0-9_-]{8,64})(?:\.mp3|\/embed)?\/?$/.exec(url.pathname.slice(prefix.length));
  return url.pathname.startsWith(`${prefix}/p/`) && match ? (match[1] as string) : null;
}
