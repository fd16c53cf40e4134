/**
 * From an x402 payment to the payment request it pays, after which the reference flow's own
 * claim and publish run (service.ts, publish.ts), so P1–P16 hold for x402 too.
 *
 * The order is x402's own (verify, do the work, settle): `/verify` before the claim, `/settle`
 * after the audio is made and before the profile is written. So a payment is taken only for a
 * profile about to be published, and a failure before that (facilitator down, speech failing)
 * charges nothing. The row's id is derived from the signed payload, so the same signature finds
 * the same row again: it is verified, settled and published once, whatever the retries (P6, P7).
 */
import { isUniqueViolation } from '../../db/errors.js';
import { withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { temporarilyUnavailable } from './agent-errors.js';
import {
  findPaymentRequestById,
  findX402Settlement,
  insertPaymentRequest,
  insertX402Settlement,
  listX402PaymentsAwaitingRefund,
  moveRequestState,
  type PaymentRequestRow,
  recordX402Refund,
} from './repo.js';
import { type LocatedRequest, pendingRequestRow, requestMismatch } from './standard-credential.js';
import {
  FacilitatorUnavailable,
  offeredRequestOf,
  paymentResponseHeader,
  settlePayment,
  verifyPayment,
  X402_PROVIDER,
  type X402Payload,
} from './x402.js';

const FRESH = 'Sign the new PAYMENT-REQUIRED offer, then repeat this request.';

/** The facilitator settles nothing right now: nothing was charged or published. */
export const facilitatorDown = () =>
  temporarilyUnavailable(
    'The x402 facilitator is unavailable; nothing was charged or published. Repeat the same request with the same PAYMENT-SIGNATURE in a moment.',
    10,
    'unpaid',
  );

/** The facilitator refused to settle a verified payment (spent meanwhile, nonce used): answered with a new offer. */
export class X402SettlementRefused extends Error {}

export async function rowForX402Payment(deps: Deps, payload: X402Payload, fingerprint: string): Promise<LocatedRequest> {
  const db = deps.db.kysely;
  const x402 = deps.config.x402;
  const offered = offeredRequestOf(deps, payload);
  if (!x402 || !offered) return { refusal: `The payment answers an offer this service did not make. ${FRESH}` };
  const issued = await findPaymentRequestById(db, offered.requestId);
  if (!issued) return { refusal: `Payment required. ${FRESH}` };
  // Nothing is verified or settled for a body other than the one the offer was made for (P2).
  if (!safeEqual(issued.fingerprint, fingerprint)) throw requestMismatch();
  const id = `x402_${sha256Hex(canonicalJson(payload.payload)).slice(0, 40)}`;
  const existing = await findPaymentRequestById(db, id);
  if (existing) return { row: existing };
  if (Date.parse(issued.expires_at) <= deps.clock.now().getTime()) return { refusal: `That payment offer expired. ${FRESH}` };
  let verdict;
  try {
    verdict = await verifyPayment(x402, payload, offered.requirements);
  } catch (err) {
    if (!(err instanceof FacilitatorUnavailable)) throw err;
    deps.logger.error({ err: err.message }, 'x402 facilitator unavailable');
    throw facilitatorDown();
  }
  if (!verdict.isValid) {
    deps.logger.info({ reason: verdict.invalidReason }, 'x402 payment refused by the facilitator');
    return { refusal: `The x402 payment was refused (${verdict.invalidReason ?? 'invalid'}). ${FRESH}` };
  }
  const row = {
    ...pendingRequestRow(deps, { id, paymentIntentId: id, fingerprint, now: isoNow(deps.clock), expiresAt: issued.expires_at }),
    provider: X402_PROVIDER,
  };
  try {
    await insertPaymentRequest(db, row);
  } catch (err) {
    // An identical retry running at the same time recorded it first: the same row.
    if (!isUniqueViolation(err)) throw err;
  }
  return { row: (await findPaymentRequestById(db, id)) ?? row };
}

/**
 * The settle step publish.ts runs before writing the profile: settles once (a settlement already
 * recorded for this row is reused) and answers the `PAYMENT-RESPONSE` header.
 */
export const x402Settler = (deps: Deps, row: PaymentRequestRow, payload: X402Payload) => async (): Promise<string> => {
  const db = deps.db.kysely;
  const done = await findX402Settlement(db, row.id);
  if (done) return paymentResponseHeader(done);
  const x402 = deps.config.x402;
  const offered = offeredRequestOf(deps, payload);
  if (!x402 || !offered) throw new X402SettlementRefused('the x402 offer is no longer accepted');
  const answer = await settlePayment(x402, payload, offered.requirements);
  if (!answer.success) throw new X402SettlementRefused(answer.errorReason ?? 'settlement failed');
  const settlement = {
    payment_request_id: row.id,
    network: answer.network,
    payer: answer.payer ?? '',
    amount: offered.requirements.amount,
    asset: offered.requirements.asset,
    pay_to: offered.requirements.payTo,
    transaction: answer.transaction,
    settled_at: isoNow(deps.clock),
  };
  await insertX402Settlement(db, settlement);
  return paymentResponseHeader(settlement);
};

/** `PAYMENT-RESPONSE` of a published x402 request (for its replays), or undefined for other methods. */
export async function storedPaymentResponse(deps: Pick<Deps, 'db'>, row: PaymentRequestRow): Promise<string | undefined> {
  if (row.provider !== X402_PROVIDER) return undefined;
  const settlement = await findX402Settlement(deps.db.kysely, row.id);
  return settlement ? paymentResponseHeader(settlement) : undefined;
}

/**
 * "Refunding" an x402 request (P9): unsettled, nothing was taken, so it is done at once. x402 has
 * no refund call: a settled payment whose publication failed for good stays `refunding`, and the
 * log names payer, amount and transaction for the operator to send back and record with
 * `recordX402ManualRefund` (`cli x402 refunds`, `cli x402 refunded`; docs/entities.md).
 */
export async function refundX402Request(
  deps: Pick<Deps, 'db' | 'clock' | 'logger' | 'metrics'>,
  row: PaymentRequestRow,
  reason: string,
  options: { resume?: boolean },
): Promise<boolean> {
  const db = deps.db.kysely;
  const now = isoNow(deps.clock);
  const from = options.resume ? (['refunding'] as const) : (['pending', 'claimed'] as const);
  const settlement = await findX402Settlement(db, row.id);
  if (!settlement) {
    const moved = await moveRequestState(db, { paymentIntentId: row.id, from, to: 'refunded', now, lastError: reason });
    if (moved) deps.metrics.payments.inc({ outcome: 'refunded' });
    return moved;
  }
  if (!options.resume) await moveRequestState(db, { paymentIntentId: row.id, from, to: 'refunding', now, lastError: reason });
  deps.logger.error(
    { payment_request: row.id, payer: settlement.payer, amount: settlement.amount, transaction: settlement.transaction, reason },
    'x402 payment settled but not published: send it back to the payer by hand (x402 has no refund call), then record it with `cli x402 refunded`',
  );
  return false;
}

/** The sweep of one x402 request: expired unsettled ones are cancelled; settled ones nobody used are refunded (P10, P11). */
export async function sweepX402Request(
  deps: Pick<Deps, 'db' | 'clock' | 'logger' | 'metrics'>,
  row: PaymentRequestRow,
  now: Date,
  graceMs: number,
): Promise<'canceled' | 'refunded' | 'waiting'> {
  if (row.state === 'refunding') {
    return (await refundX402Request(deps, row, 'resuming an unfinished refund', { resume: true })) ? 'refunded' : 'waiting';
  }
  const settled = await findX402Settlement(deps.db.kysely, row.id);
  if (!settled) {
    await moveRequestState(deps.db.kysely, {
      paymentIntentId: row.id,
      from: [row.state],
      to: 'canceled',
      now: now.toISOString(),
    });
    return 'canceled';
  }
  const deadline = Date.parse(row.state === 'claimed' ? (row.claimed_at ?? row.expires_at) : row.expires_at) + graceMs;
  if (now.getTime() < deadline) return 'waiting';
  await refundX402Request(deps, row, 'paid but never used', {});
  return 'waiting';
}

/** One settled x402 payment waiting for the operator to send it back (`cli x402 refunds`). */
export interface X402ManualRefund {
  payment_request_id: string;
  payer: string;
  /** Token units, as settled. */
  amount: string;
  /** The price it paid, e.g. `{ amount: '1.00', currency: 'AUD' }`. */
  price: { amount: string; currency: string };
  /** Null for a settlement recorded before the token and wallet were kept (migration 0041). */
  asset: string | null;
  network: string;
  /** The wallet that received it, and so sends it back. */
  pay_to: string | null;
  transaction: string;
  settled_at: string;
  /** When the request was given up and moved to `refunding`. */
  waiting_since: string;
  reason: string | null;
}

/** Every settled x402 payment whose publication failed for good and that nobody sent back yet. */
export async function listX402ManualRefunds(deps: Pick<Deps, 'db'>): Promise<X402ManualRefund[]> {
  const rows = await listX402PaymentsAwaitingRefund(deps.db.kysely);
  return rows.map((row) => ({
    payment_request_id: row.payment_request_id,
    payer: row.payer,
    amount: row.amount,
    price: { amount: (row.amount_minor / 100).toFixed(2), currency: row.currency.toUpperCase() },
    asset: row.asset,
    network: row.network,
    pay_to: row.pay_to,
    transaction: row.transaction,
    settled_at: row.settled_at,
    waiting_since: row.updated_at,
    reason: row.last_error,
  }));
}

/** An EVM transaction hash: what the operator's transfer back is identified by. */
const TRANSACTION_HASH = /^0x[0-9a-f]{64}$/i;

/**
 * Records that the operator sent a settled x402 payment back (P9): the request moves `refunding`
 * → `refunded` and the settlement keeps the refund's transaction, in one transaction, exactly
 * once. The state guard lets one caller win, so a second run, an unknown request or one not
 * waiting is refused with nothing changed; the sweeper no longer sees the request.
 */
export async function recordX402ManualRefund(
  deps: Pick<Deps, 'db' | 'clock' | 'logger' | 'metrics' | 'jobsWakeup'>,
  input: { paymentRequestId: string; transaction: string },
): Promise<{ payment_request_id: string; refund_transaction: string; refunded_at: string }> {
  if (!TRANSACTION_HASH.test(input.transaction)) {
    throw new AppError(
      'parameter_invalid',
      `The refund transaction must be a transaction hash (0x and 64 hex digits), not "${input.transaction.slice(0, 80)}".`,
      { param: 'transaction' },
    );
  }
  const transaction = input.transaction.toLowerCase();
  const now = isoNow(deps.clock);
  await withTransaction(deps, async (tx) => {
    const row = await findPaymentRequestById(tx.trx, input.paymentRequestId);
    if (!row || row.provider !== X402_PROVIDER) {
      throw new AppError('resource_missing', `No x402 payment request ${input.paymentRequestId}.`);
    }
    const settlement = await findX402Settlement(tx.trx, row.id);
    if (settlement?.refund_transaction) {
      throw new AppError(
        'conflict',
        `${row.id} was already sent back (transaction ${settlement.refund_transaction}, recorded ${settlement.refunded_at ?? ''}).`,
      );
    }
    if (row.state !== 'refunding' || !settlement) {
      throw new AppError('conflict', `${row.id} is not waiting for a manual refund (its state is ${row.state}).`);
    }
    const moved = await moveRequestState(tx.trx, {
      paymentIntentId: row.payment_intent_id,
      from: ['refunding'],
      to: 'refunded',
      now,
    });
    // Another run recorded it meanwhile: this one changes nothing.
    if (!moved || !(await recordX402Refund(tx.trx, { paymentRequestId: row.id, transaction, now }))) {
      throw new AppError('conflict', `${row.id} was recorded as sent back by another run just now.`);
    }
    tx.afterCommit(() => deps.metrics.payments.inc({ outcome: 'refunded' }));
  });
  deps.logger.info(
    { payment_request: input.paymentRequestId, refund_transaction: transaction },
    'x402 payment sent back by hand',
  );
  return { payment_request_id: input.paymentRequestId, refund_transaction: transaction, refunded_at: now };
}
