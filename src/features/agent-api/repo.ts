/** Every query of the agent API: its payment requests (the profiles it publishes are written through src/features/profiles). */
import type { Insertable, Kysely } from 'kysely';
import type { Database, EntityPaymentRequestsTable } from '../../db/schema.js';
import { assertPaymentTransition, type INITIAL_PAYMENT_STATE, type PaymentState } from './payment-states.js';

type Q = Kysely<Database>;
/** The column holds only the states of payment-states.ts: every write goes through this file. */
export type PaymentRequestRow = Omit<EntityPaymentRequestsTable, 'state'> & { state: PaymentState };
/** A new request always starts in the initial state. */
export type NewPaymentRequestRow = PaymentRequestRow & { state: typeof INITIAL_PAYMENT_STATE };

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

/** Canceled payment requests last updated before `before`: nothing to refund or replay any more. */
export async function deleteCanceledRequestsBefore(db: Q, before: string): Promise<number> {
  const result = await db
    .deleteFrom('entity_payment_requests')
    .where('state', '=', 'canceled')
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The facilitator's settlement of an x402 payment request, if it was settled. */
export const findX402Settlement = (db: Q, paymentRequestId: string) =>
  db.selectFrom('x402_settlements').selectAll().where('payment_request_id', '=', paymentRequestId).executeTakeFirst();

export const insertX402Settlement = (db: Q, row: Insertable<Database['x402_settlements']>) =>
  db.insertInto('x402_settlements').values(row).execute();

/**
 * x402 payments waiting for the operator to send them back: settled, their request `refunding`
 * (publication failed for good) and no refund recorded yet. Oldest first.
 */
export const listX402PaymentsAwaitingRefund = (db: Q) =>
  db
    .selectFrom('entity_payment_requests as r')
    .innerJoin('x402_settlements as s', 's.payment_request_id', 'r.id')
    .select([
      'r.id as payment_request_id',
      'r.amount_minor',
      'r.currency',
      'r.last_error',
      'r.updated_at',
      's.payer',
      's.amount',
      's.asset',
      's.network',
      's.pay_to',
      's.transaction',
      's.settled_at',
    ])
    .where('r.state', '=', 'refunding')
    .where('s.refund_transaction', 'is', null)
    .orderBy('r.updated_at')
    .orderBy('r.id')
    .execute();

/** Stores the operator's refund of a settlement, once: false when one was recorded already. */
export async function recordX402Refund(db: Q, input: { paymentRequestId: string; transaction: string; now: string }) {
  const result = await db
    .updateTable('x402_settlements')
    .set({ refund_transaction: input.transaction, refunded_at: input.now })
    .where('payment_request_id', '=', input.paymentRequestId)
    .where('refund_transaction', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
