/**
 * Published profiles: lookup for the pages, and deletion with the receipt's deletion token.
 */
import type { Deps } from '../../deps.js';
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { agentError } from './agent-errors.js';
import { type EntityRow, findEntityBySlug, markEntityDeleted } from './repo.js';
import { isSlug } from './slug.js';

export type ProfileLookup = { kind: 'found'; entity: EntityRow } | { kind: 'gone' } | { kind: 'not_found' };

/** The live entity at `slug`, `gone` after deletion (the slug stays reserved), or `not_found`. */
export async function findProfile(deps: Pick<Deps, 'db'>, slug: string): Promise<ProfileLookup> {
  if (!isSlug(slug)) return { kind: 'not_found' };
  const entity = await findEntityBySlug(deps.db.kysely, slug);
  if (!entity) return { kind: 'not_found' };
  return entity.deleted_at ? { kind: 'gone' } : { kind: 'found', entity };
}

/** Whether `token` is the entity's receipt deletion token: compared by hash, in constant time (P12). */
export const deletionTokenMatches = (entity: EntityRow, token: string): boolean =>
  safeEqual(sha256Hex(token.trim().toLowerCase()), entity.deletion_token_hash);

const alreadyDeleted = () => agentError('gone', 'This entity was already deleted.');

/**
 * Deletes the profile at `slug` when `token` is its receipt's deletion token (compared by hash, in
 * constant time, P12): the page, the machine-readable document and the audio go; the URLs answer
 * 410 afterwards and the slug is never reissued. Throws 404 `not_found`, 410 `gone`, 401
 * `unauthorized` (no token) or 403 `forbidden` (another token).
 */
export async function deleteEntity(
  deps: Pick<Deps, 'db' | 'clock' | 'blobs'>,
  slug: string,
  token: string | undefined,
): Promise<void> {
  const found = await findProfile(deps, slug);
  if (found.kind === 'not_found') throw agentError('not_found', 'No entity has this slug.');
  if (found.kind === 'gone') throw alreadyDeleted();
  if (!token) throw agentError('unauthorized', 'Send the header Deletion-Token with the receipt.deletion_token.');
  if (!deletionTokenMatches(found.entity, token)) {
    throw agentError('forbidden', 'The deletion token does not match this entity.');
  }
  const deleted = await markEntityDeleted(deps.db.kysely, { id: found.entity.id, now: isoNow(deps.clock) });
  if (!deleted) throw alreadyDeleted();
  if (found.entity.audio_blob_key) await deps.blobs.delete(found.entity.audio_blob_key);
}
