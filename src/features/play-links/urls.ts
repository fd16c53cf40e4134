import { escapeHtml } from '../../web/html.js';

/** The public URLs of a play link, as the spec spells them. Shared by every feature that shows one. */
export function playLinkUrls(baseUrl: string, token: string) {
  const playLink = `${baseUrl}/p/${token}`;
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
