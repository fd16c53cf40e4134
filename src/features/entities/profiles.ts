/**
 * Published profiles: lookup for the pages, and deletion with the receipt's deletion token.
 */
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { EntitiesContext } from './context.js';
import { type EntityRow, findEntityBySlug, markEntityDeleted } from './repo.js';
import { SLUG_PATTERN } from './slug.js';

export type ProfileLookup = { kind: 'found'; entity: EntityRow } | { kind: 'gone' } | { kind: 'not_found' };

/** The live entity at `slug`, `gone` after deletion (the slug stays reserved), or `not_found`. */
export async function findProfile(context: EntitiesContext, slug: string): Promise<ProfileLookup> {
  if (!SLUG_PATTERN.test(slug) || slug.length > 120) return { kind: 'not_found' };
  const entity = await findEntityBySlug(context.db.kysely, slug);
  if (!entity) return { kind: 'not_found' };
  return entity.deleted_at ? { kind: 'gone' } : { kind: 'found', entity };
}

/** Whether `token` is the entity's receipt deletion token: compared by hash, in constant time (P12). */
export const deletionTokenMatches = (entity: EntityRow, token: string): boolean =>
  safeEqual(sha256Hex(token.trim().toLowerCase()), entity.deletion_token_hash);

export type DeleteOutcome = 'deleted' | 'not_found' | 'gone' | 'token_missing' | 'token_invalid';

/**
 * Deletes the profile at `slug` when `token` is its receipt's deletion token (compared by hash, in
 * constant time, P12): the page, the machine-readable document and the audio go; the URLs answer
 * 410 afterwards and the slug is never reissued.
 */
export async function deleteEntity(context: EntitiesContext, slug: string, token: string | undefined): Promise<DeleteOutcome> {
  const found = await findProfile(context, slug);
  if (found.kind !== 'found') return found.kind;
  if (!token) return 'token_missing';
  if (!deletionTokenMatches(found.entity, token)) return 'token_invalid';
  const deleted = await markEntityDeleted(context.db.kysely, { id: found.entity.id, now: isoNow(context.clock) });
  if (!deleted) return 'gone';
  if (found.entity.audio_blob_key) await context.blobs.delete(found.entity.audio_blob_key);
  return 'deleted';
}
