/**
 * Claiming (spec section 3): a human signed in to the dashboard proves they control the agent
 * that paid for a profile by giving its receipt's deletion token; the entity then becomes
 * claimed by their account and verified. The dashboard is the only caller.
 */
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { homepageOf, provenDomainOf } from '../profiles/homepage.js';
import { deletionTokenMatches, type EntityRow, findProfile } from '../profiles/service.js';
import { isSlug } from '../profiles/slug.js';
import { listEntitiesClaimedBy, markEntityClaimed, updateClaimedEntityVisibility } from './repo.js';

type ClaimDeps = Pick<Deps, 'db' | 'clock'>;

export interface ClaimedEntity {
  slug: string;
  name: string;
  entity_type: string;
  visibility: string;
  claim_state: string;
  verification_state: string;
  claimed_at: string | null;
  created_at: string;
  /** The domain of the profile's homepage (source_url), which its owner may prove; null without one. */
  source_domain: string | null;
  /** The domain the owner proved control of (domain-service.ts), or null. */
  verified_domain: string | null;
}

const view = (row: EntityRow): ClaimedEntity => ({
  slug: row.slug,
  name: row.name,
  entity_type: row.entity_type,
  visibility: row.visibility,
  claim_state: row.claim_state,
  verification_state: row.verification_state,
  claimed_at: row.claimed_at,
  created_at: row.created_at,
  source_domain: homepageOf(row.source_url)?.hostname ?? null,
  verified_domain: provenDomainOf(row),
});

/**
 * The slug in what a person pastes: the profile URL (`https://site/e/<slug>`, also its
 * `service.json` or `name.mp3` URL) or the slug itself. Null when there is none.
 */
export function slugFromProfileInput(input: string): string | null {
  const text = input.trim();
  const fromPath = /(?:^|\/)e\/([^/?#\s]+)/.exec(text);
  const candidate = (fromPath ? fromPath[1] : text.replace(/^\/+|\/+$/g, '')) ?? '';
  let slug: string;
  try {
    slug = decodeURIComponent(candidate).toLowerCase();
  } catch {
    return null;
  }
  return isSlug(slug) ? slug : null;
}

const noSuchProfile = () => new AppError('resource_missing', 'No published profile at that address.', { param: 'profile' });

/**
 * Claims the live entity at `slug` for `accountId` when `deletionToken` is its receipt's token
 * (compared by hash in constant time): claim_state `claimed`, verification_state `verified`,
 * with the account and time recorded. Claiming again from the same account changes nothing and
 * succeeds. Errors: 404 `resource_missing` (no such or deleted profile), 403
 * `claim_token_invalid` (wrong token), 409 `entity_already_claimed` (another account has it).
 */
export async function claimEntity(
  deps: ClaimDeps,
  accountId: string,
  slug: string,
  deletionToken: string,
): Promise<ClaimedEntity> {
  const found = await findProfile(deps, slug);
  if (found.kind !== 'found') throw noSuchProfile();
  const entity = found.entity;
  if (!deletionTokenMatches(entity, deletionToken)) {
    throw new AppError('claim_token_invalid', 'That is not the deletion token of this profile’s receipt.', {
      param: 'deletion_token',
    });
  }
  if (
    entity.claim_state !== 'unclaimed' ||
    !(await markEntityClaimed(deps.db.kysely, { id: entity.id, accountId, now: isoNow(deps.clock) }))
  ) {
    const current = await findProfile(deps, slug);
    if (current.kind !== 'found') throw noSuchProfile();
    if (current.entity.claimed_by_account_id === accountId) return view(current.entity);
    throw new AppError('entity_already_claimed', 'This profile is already claimed by another account.');
  }
  const claimed = await findProfile(deps, slug);
  if (claimed.kind !== 'found') throw noSuchProfile();
  return view(claimed.entity);
}

/** The live profile at `slug` claimed by `accountId`; 404 `resource_missing` for any other. */
export async function findOwnedEntity(deps: Pick<Deps, 'db'>, accountId: string, slug: string): Promise<EntityRow> {
  const found = await findProfile(deps, slug);
  if (found.kind !== 'found' || found.entity.claimed_by_account_id !== accountId) {
    throw new AppError('resource_missing', 'No profile of yours at that address.', { param: 'profile' });
  }
  return found.entity;
}

export const PROFILE_VISIBILITIES = ['public', 'unlisted'] as const;

/**
 * The owner's settings (spec section 3: a claimed profile's owner manages it in the dashboard):
 * switches a claimed profile between `public` and `unlisted` (noindex, not linked publicly).
 * Only the claiming account may; any other profile answers 404 `resource_missing`.
 */
export async function setClaimedEntityVisibility(
  deps: ClaimDeps,
  accountId: string,
  slug: string,
  visibility: string,
): Promise<void> {
  if (!(PROFILE_VISIBILITIES as readonly string[]).includes(visibility)) {
    throw new AppError('parameter_invalid', 'Visibility must be public or unlisted.', { param: 'visibility' });
  }
  if (!isSlug(slug) || !(await updateClaimedEntityVisibility(deps.db.kysely, { slug, accountId, visibility }))) {
    throw noSuchProfile();
  }
}

/** The account's claimed, live profiles, most recently claimed first. */
export async function listClaimedEntities(deps: ClaimDeps, accountId: string): Promise<ClaimedEntity[]> {
  return (await listEntitiesClaimedBy(deps.db.kysely, accountId)).map(view);
}
