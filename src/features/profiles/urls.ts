/**
 * The public addresses of a published profile under SITE_URL. Plain functions of the config (and
 * the hashed asset names), so every caller computes the same URL without a shared object.
 */
import type { Deps } from '../../deps.js';
import { slugPath } from './slug.js';

/** The profiles' oEmbed endpoint (oembed.ts); never a profile's path, since slugs have no dots. */
export const PROFILE_OEMBED_PATH = '/e/oembed.json';

export function profileUrls(deps: Pick<Deps, 'config' | 'assets'>) {
  const site = deps.config.siteUrl;
  return {
    site,
    profile: (slug: string) => `${site}/e/${slugPath(slug)}`,
    machineReadable: (slug: string) => `${site}/e/${slugPath(slug)}/.well-known/service.json`,
    audio: (slug: string) => `${site}/e/${slugPath(slug)}/name.mp3`,
    oembed: (slug: string) =>
      `${site}${PROFILE_OEMBED_PATH}?url=${encodeURIComponent(`${site}/e/${slugPath(slug)}`)}&format=json`,
    defaultAvatar: () => `${site}${deps.assets.url('robot-avatar.svg')}`,
  };
}
