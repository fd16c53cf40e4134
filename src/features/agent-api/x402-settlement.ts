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
import type { Deps } from '../../deps.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { temporarilyUnavailable } from './agent-errors.js';
import {
  findPaymentRequestById,
  findX402Settlement,
  insertPaymentRequest,
  insertX402Settlement,
  moveRequestState,
  type PaymentRequestRow,
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
 * log names payer, amount and transaction for the operator to send back (docs/entities.md).
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
    'x402 payment settled but not published: send it back to the payer by hand (x402 has no refund call)',
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
