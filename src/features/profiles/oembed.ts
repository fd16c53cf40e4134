/**
 * oEmbed 1.0 for agent profiles (`GET /e/oembed.json?url=<profile URL>`), announced by the
 * profile page's `<link rel="alternate" type="application/json+oembed">`. A profile has no widget
 * to embed (play links do), so the answer is a `link`: the name, its operator and the preview card
 * as thumbnail, which is left out when it would not fit the consumer's maxwidth/maxheight.
 */
import type { Deps } from '../../deps.js';
import { entityCardUrl } from './card.js';
import { type EntityRow, findProfile, type ProfileLookup } from './service.js';
import { isSlug } from './slug.js';
import { profileUrls } from './urls.js';

const CARD = { width: 1200, height: 630 };

/** The slug of a profile URL of this site (`<SITE_URL>/e/<slug>`), or null for any other URL. */
export function slugFromProfileUrl(deps: Pick<Deps, 'config'>, url: string): string | null {
  let parsed: URL;
  let site: URL;
  try {
    parsed = new URL(url);
    site = new URL(deps.config.siteUrl);
  } catch {
    return null;
  }
  if (parsed.origin !== site.origin) return null;
  const match = /^\/e\/([^/]+)\/?$/.exec(parsed.pathname);
  if (!match) return null;
  let slug: string;
  try {
    slug = decodeURIComponent(match[1] as string);
  } catch {
    return null;
  }
  return isSlug(slug) ? slug : null;
}

/** The profile a consumer asked about, by its URL. */
export async function findProfileByUrl(deps: Pick<Deps, 'config' | 'db'>, url: string): Promise<ProfileLookup> {
  const slug = slugFromProfileUrl(deps, url);
  return slug === null ? { kind: 'not_found' } : findProfile(deps, slug);
}

/** Whether a thumbnail of `size` fits within the consumer's limits (absent or unreadable: no limit). */
const fits = (limit: string | undefined, size: number) => {
  const value = Number(limit);
  return limit === undefined || limit === '' || !Number.isFinite(value) || value >= size;
};

export function profileOembed(deps: Deps, entity: EntityRow, limits: { maxwidth?: string; maxheight?: string }) {
  const urls = profileUrls(deps);
  const thumbnail =
    fits(limits.maxwidth, CARD.width) && fits(limits.maxheight, CARD.height)
      ? { thumbnail_url: entityCardUrl(deps, entity), thumbnail_width: CARD.width, thumbnail_height: CARD.height }
      : {};
  return {
    version: '1.0',
    type: 'link',
    title: `How to say ${entity.name}`,
    author_name: entity.operator,
    provider_name: 'voicename',
    provider_url: urls.site,
    cache_age: 300,
    ...thumbnail,
  };
}
