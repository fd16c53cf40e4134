/**
 * A profile's homepage (`source_url`) as a URL, and the domain its owner proved control of
 * (src/features/profile-ownership/domain-service.ts) while the homepage is still on it: the one
 * thing that lets a profile vouch for a brand.
 */
import type { EntitiesTable } from '../../db/schema.js';

/** The homepage as an absolute http(s) URL; null for none or for a path on this site. */
export function homepageOf(sourceUrl: string | null): URL | null {
  if (!sourceUrl) return null;
  try {
    const url = new URL(sourceUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** The proved domain of a claimed profile, while its homepage is still on it; null otherwise. */
export function provenDomainOf(entity: Pick<EntitiesTable, 'claim_state' | 'verified_domain' | 'source_url'>): string | null {
  if (entity.claim_state !== 'claimed' || !entity.verified_domain) return null;
  return homepageOf(entity.source_url)?.hostname === entity.verified_domain ? entity.verified_domain : null;
}
