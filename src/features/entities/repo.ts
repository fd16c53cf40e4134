/** Every query of the entities feature. */
import type { Kysely } from 'kysely';
import type { Database, EntitiesTable, EntityPaymentRequestsTable } from '../../db/schema.js';
import { confusableSkeleton } from '../../lib/confusables.js';
import { assertPaymentTransition, type INITIAL_PAYMENT_STATE, type PaymentState } from './payment-states.js';

type Q = Kysely<Database>;
/** The column holds only the states of payment-states.ts: every write goes through this file. */
export type PaymentRequestRow = Omit<EntityPaymentRequestsTable, 'state'> & { state: PaymentState };
/** A new request always starts in the initial state. */
export type NewPaymentRequestRow = PaymentRequestRow & { state: typeof INITIAL_PAYMENT_STATE };
export type EntityRow = EntitiesTable;

export const insertPaymentRequest = (db: Q, row: NewPaymentRequestRow) =>
  db.insertInto('entity_payment_requests').values(row).execute();

export const findPaymentRequestByIntent = (db: Q, paymentIntentId: string) =>
  db
    .selectFrom('entity_payment_requests')
    .selectAll()
    .where('payment_intent_id', '=', paymentIntentId)
    .executeTakeFirst() as Promise<PaymentRequestRow | undefined>;

export const findPaymentRequestById = (db: Q, id: string) =>
  db.selectFrom('entity_payment_requests').selectAll().where('id', '=', id).executeTakeFirst() as Promise<
    PaymentRequestRow | undefined
  >;

const CLAIMABLE: readonly PaymentState[] = ['pending', 'claimed'];

/**
 * The atomic claim (P1, P6): one statement moves `pending` (or a claim whose holder died, older
 * than `staleBefore`) to `claimed`. Exactly one concurrent caller sees one updated row.
 */
export async function claimPaymentRequest(db: Q, input: { paymentIntentId: string; now: string; staleBefore: string }) {
  assertPaymentTransition(CLAIMABLE, 'claimed');
  const result = await db
    .updateTable('entity_payment_requests')
    .set((eb) => ({ state: 'claimed', claimed_at: input.now, updated_at: input.now, attempts: eb('attempts', '+', 1) }))
    .where('payment_intent_id', '=', input.paymentIntentId)
    .where((eb) =>
      eb.or([eb('state', '=', 'pending'), eb.and([eb('state', '=', 'claimed'), eb('claimed_at', '<', input.staleBefore)])]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * The holder of a claim says it is still alive: moves `claimed_at` forward, only if the claim is
 * still the one it took (`claimedAt`). False when another process took it over meanwhile.
 */
export async function renewClaim(db: Q, input: { paymentIntentId: string; claimedAt: string; now: string }) {
  assertPaymentTransition(['claimed'], 'claimed');
  const result = await db
    .updateTable('entity_payment_requests')
    .set({ claimed_at: input.now, updated_at: input.now })
    .where('payment_intent_id', '=', input.paymentIntentId)
    .where('state', '=', 'claimed')
    .where('claimed_at', '=', input.claimedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Moves a request from one of `from` to `to`; true when this caller made the move. A move the
 * transition table does not allow throws before anything is written.
 */
export async function moveRequestState(
  db: Q,
  input: {
    paymentIntentId: string;
    from: readonly PaymentState[];
    to: PaymentState;
    now: string;
    entityId?: string;
    lastError?: string | null;
  },
) {
  assertPaymentTransition(input.from, input.to);
  const result = await db
    .updateTable('entity_payment_requests')
    .set({
      state: input.to,
      updated_at: input.now,
      ...(input.entityId === undefined ? {} : { entity_id: input.entityId }),
      ...(input.lastError === undefined ? {} : { last_error: input.lastError?.slice(0, 1000) ?? null }),
    })
    .where('payment_intent_id', '=', input.paymentIntentId)
    .where('state', 'in', input.from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Requests the sweeper looks at: expired pending ones, stuck claims, unfinished refunds. */
export const listRequestsToSweep = (db: Q, input: { now: string; staleClaimBefore: string; limit: number }) =>
  db
    .selectFrom('entity_payment_requests')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'pending'), eb('expires_at', '<', input.now)]),
        eb.and([eb('state', '=', 'claimed'), eb('claimed_at', '<', input.staleClaimBefore)]),
        eb('state', '=', 'refunding'),
      ]),
    )
    .orderBy('expires_at')
    .limit(input.limit)
    .execute() as Promise<PaymentRequestRow[]>;

/**
 * The slug of the profile holding this name: the same slug, or one with the same confusable
 * skeleton (a look-alike); null when the name is free. Deleted profiles keep holding theirs.
 */
export async function nameHolder(db: Q, slug: string): Promise<string | null> {
  const row = await db
    .selectFrom('entities')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', slug), eb('name_skeleton', '=', confusableSkeleton(slug))]))
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.slug ?? null;
}

export const insertEntity = (db: Q, row: EntityRow) => db.insertInto('entities').values(row).execute();

export const findEntityBySlug = (db: Q, slug: string) =>
  db.selectFrom('entities').selectAll().where('slug', '=', slug).executeTakeFirst();

export const findEntityById = (db: Q, id: string) =>
  db.selectFrom('entities').selectAll().where('id', '=', id).executeTakeFirst();

/** Deletion keeps a tombstone (the slug stays reserved, so the URL answers 410) and wipes the rest. */
export async function markEntityDeleted(db: Q, input: { id: string; now: string }) {
  const result = await db
    .updateTable('entities')
    .set((eb) => ({
      deleted_at: input.now,
      name: eb.ref('slug'),
      description: '',
      operator: '',
      avatar_url: null,
      source_url: null,
      intro: null,
      external_metadata: null,
      agent_id: null,
      callback_url: null,
      audio_blob_key: null,
    }))
    .where('id', '=', input.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

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

/** Canceled payment requests last updated before `before`: nothing to refund or replay any more. */
export async function deleteCanceledRequestsBefore(db: Q, before: string): Promise<number> {
  const result = await db
    .deleteFrom('entity_payment_requests')
    .where('state', '=', 'canceled')
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

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
