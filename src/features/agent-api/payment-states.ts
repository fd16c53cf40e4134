/**
 * The life of a payment request (one row of `entity_payment_requests`): its states, the moves
 * allowed between them, and the one check every move goes through before any SQL is issued.
 *
 *   pending ──claim──▶ claimed ──publish──▶ published
 *      │  ▲               │
 *      │  └─retry free────┤
 *      ├──────────────────┴──▶ refunding ──▶ refunded
 *      ├──▶ refunded (reversed at the processor)
 *      └──▶ canceled (expired, or the intent is gone)
 *
 * A claimed request may also be canceled or marked refunded by the sweep when its process died
 * and the processor says so. Published, refunded and canceled are final.
 */
import type { EntityPaymentRequestsTable } from '../../db/schema.js';
import { AppError } from '../../errors.js';

export type PaymentState = EntityPaymentRequestsTable['state'];
export const PAYMENT_STATES = [
  'pending',
  'claimed',
  'published',
  'refunding',
  'refunded',
  'canceled',
] as const satisfies readonly PaymentState[];
// Every state of the column is listed (the tests walk all pairs of this list).
const everyStateListed: Exclude<PaymentState, (typeof PAYMENT_STATES)[number]> extends never ? true : false = true;
void everyStateListed;

/** Every request starts here: an intent was issued and not yet used. */
export const INITIAL_PAYMENT_STATE = 'pending' satisfies PaymentState;

/** from → the states it may move to. Nothing else is ever written. */
export const PAYMENT_TRANSITIONS: Readonly<Record<PaymentState, readonly PaymentState[]>> = {
  // Paid and claimed by a publisher; reversed at the processor; expired; or refunded because
  // the name was taken meanwhile.
  pending: ['claimed', 'refunding', 'refunded', 'canceled'],
  // `claimed` again: a claim whose holder died is taken over. `pending`: a failed generation
  // keeps the payment for a free retry. The rest: published, or given back (P9, P11).
  claimed: ['claimed', 'pending', 'published', 'refunding', 'refunded', 'canceled'],
  // `refunding` again: the sweeper resumes a refund whose processor call failed (P9, P16).
  refunding: ['refunding', 'refunded'],
  published: [],
  refunded: [],
  canceled: [],
};

export const isPaymentTransitionAllowed = (from: PaymentState, to: PaymentState): boolean =>
  PAYMENT_TRANSITIONS[from].includes(to);

/**
 * Throws unless every state in `from` may move to `to`. Called by each repo function that
 * changes a request's state, before its SQL; the SQL still guards with `state in (from)` so
 * that of concurrent movers exactly one wins.
 */
export function assertPaymentTransition(from: readonly PaymentState[], to: PaymentState): void {
  const refused = from.length === 0 ? ['(none)'] : from.filter((state) => !isPaymentTransitionAllowed(state, to));
  if (refused.length > 0) {
    throw new AppError('internal_error', `A payment request cannot move from ${refused.join(', ')} to ${to}.`);
  }
}
