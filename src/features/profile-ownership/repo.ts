/** Every query of profile ownership: claims, the owner's settings and domain proofs of the `entities` table. */
import type { Kysely } from 'kysely';
import type { Database, EntitiesTable } from '../../db/schema.js';

type Q = Kysely<Database>;
type EntityRow = EntitiesTable;

/**
 * Claims an unclaimed live entity for an account (claimed and verified at once); true for
 * exactly one caller, however many race.
 */
export async function markEntityClaimed(db: Q, input: { id: string; accountId: string; now: string }) {
  const result = await db
    .updateTable('entities')
    .set({
      claim_state: 'claimed',
      verification_state: 'verified',
      claimed_by_account_id: input.accountId,
      claimed_at: input.now,
    })
    .where('id', '=', input.id)
    .where('claim_state', '=', 'unclaimed')
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Sets the visibility of a live entity claimed by `accountId`; true when one changed or matched. */
export async function updateClaimedEntityVisibility(db: Q, input: { slug: string; accountId: string; visibility: string }) {
  const result = await db
    .updateTable('entities')
    .set({ visibility: input.visibility })
    .where('slug', '=', input.slug)
    .where('claimed_by_account_id', '=', input.accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Live entities the account has claimed, most recently claimed first. */
export const listEntitiesClaimedBy = (db: Q, accountId: string) =>
  db
    .selectFrom('entities')
    .selectAll()
    .where('claimed_by_account_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .orderBy('claimed_at', 'desc')
    .orderBy('id', 'desc')
    .execute();

/** Stores the domain-proof token of a live entity claimed by `accountId`, unless it has one. */
export async function setDomainToken(db: Q, input: { id: string; accountId: string; token: string }) {
  await db
    .updateTable('entities')
    .set({ domain_token: input.token })
    .where('id', '=', input.id)
    .where('claimed_by_account_id', '=', input.accountId)
    .where('domain_token', 'is', null)
    .where('deleted_at', 'is', null)
    .execute();
}

/** Records that the owner proved control of `domain`; true when the entity is still theirs. */
export async function markDomainVerified(db: Q, input: { id: string; accountId: string; domain: string; now: string }) {
  const result = await db
    .updateTable('entities')
    .set({ verified_domain: input.domain, domain_verified_at: input.now })
    .where('id', '=', input.id)
    .where('claimed_by_account_id', '=', input.accountId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Changes a live entity claimed by `accountId` (the owner's settings). */
export const updateOwnedEntity = (
  db: Q,
  input: {
    id: string;
    accountId: string;
    changes: Partial<
      Pick<
        EntityRow,
        | 'description'
        | 'intro'
        | 'avatar_url'
        | 'source_url'
        | 'voice_style'
        | 'audio_blob_key'
        | 'audio_byte_size'
        | 'audio_duration_ms'
      >
    >;
  },
) =>
  db
    .updateTable('entities')
    .set(input.changes)
    .where('id', '=', input.id)
    .where('claimed_by_account_id', '=', input.accountId)
    .where('deleted_at', 'is', null)
    .execute();
