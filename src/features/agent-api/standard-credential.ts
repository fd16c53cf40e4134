/**
 * From a standard MPP credential to the payment request it pays, after which the reference
 * flow's own code settles, claims and publishes (service.ts), so P1–P16 hold unchanged.
 *
 * - `sandbox`: the credential names the sandbox intent of the 402 it answers; that row is it.
 * - `stripe`: the credential carries a shared payment token. The token pays a new intent of
 *   100 `aud` (created and confirmed in one call, idempotency key per challenge and token, P16),
 *   recorded as a payment request bound to the same body. The row's id is derived from the
 *   challenge and the token, so an identical retry finds it again without a second charge (P7).
 */
import type { Credential } from 'mppx';
import { isUniqueViolation } from '../../db/errors.js';
import { PaymentProviderError } from '../../integrations/payments/provider.js';
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { agentError, temporarilyUnavailable } from './agent-errors.js';
import type { Deps } from '../../deps.js';
import { checkCredential } from './mpp.js';
import { INITIAL_PAYMENT_STATE } from './payment-states.js';
import { PAYMENT_DESCRIPTION, PRICE, PURPOSE } from './price.js';
import { findPaymentRequestById, insertPaymentRequest, type NewPaymentRequestRow, type PaymentRequestRow } from './repo.js';

/** The payment request a credential pays, or why it pays none (answered like an unpaid request). */
export type LocatedRequest = { row: PaymentRequestRow } | { refusal: string };

/** A new payment request, waiting for its payment (state `pending`), in this processor's mode. */
export const pendingRequestRow = (
  deps: Pick<Deps, 'payments'>,
  input: { id: string; paymentIntentId: string; fingerprint: string; now: string; expiresAt: string },
): NewPaymentRequestRow => ({
  id: input.id,
  payment_intent_id: input.paymentIntentId,
  provider: deps.payments.name,
  fingerprint: input.fingerprint,
  amount_minor: PRICE.amountMinor,
  currency: PRICE.currency,
  livemode: deps.payments.livemode ? 1 : 0,
  state: INITIAL_PAYMENT_STATE,
  attempts: 0,
  entity_id: null,
  last_error: null,
  created_at: input.now,
  expires_at: input.expiresAt,
  claimed_at: null,
  updated_at: input.now,
});

export const requestMismatch = () =>
  agentError(
    'payment_request_mismatch',
    'This payment belongs to a different request body. Repeat the exact original request, or start a new one without the header.',
  );

export async function rowForStandardCredential(
  deps: Deps,
  credential: Credential.Credential,
  fingerprint: string,
): Promise<LocatedRequest> {
  const db = deps.db.kysely;
  const check = await checkCredential(deps, credential, deps.clock.now());
  if (!check.ok) return { refusal: check.message };
  const issued = await findPaymentRequestById(db, check.requestId);
  const unknown = { refusal: 'Payment required: pay the new challenge, then repeat this request.' };
  if (!issued || issued.provider !== deps.payments.name) return unknown;
  if (check.method === 'sandbox') return issued.payment_intent_id === check.reference ? { row: issued } : unknown;

  // Nothing is charged for a body other than the one the challenge was issued for (P2).
  if (!safeEqual(issued.fingerprint, fingerprint)) throw requestMismatch();
  const id = `spt_${sha256Hex(`${check.challengeId}\n${check.token}`).slice(0, 40)}`;
  const existing = await findPaymentRequestById(db, id);
  if (existing) return { row: existing };
  const charge = deps.payments.chargeSharedToken;
  if (!charge) return unknown;
  let intent;
  try {
    intent = await charge.call(deps.payments, {
      amountMinor: PRICE.amountMinor,
      currency: PRICE.currency,
      description: PAYMENT_DESCRIPTION,
      metadata: { purpose: PURPOSE, request_fingerprint: fingerprint, request_id: id, expires_at: issued.expires_at },
      idempotencyKey: `spt:${id}`,
      token: check.token,
    });
  } catch (err) {
    if (err instanceof PaymentProviderError && err.code === 'rejected') {
      deps.logger.info({ err: err.message }, 'shared payment token refused');
      return { refusal: `The payment was refused (${err.message}). Pay the new challenge, then repeat this request.` };
    }
    deps.logger.error({ err }, 'could not charge a shared payment token');
    throw temporarilyUnavailable(
      'The payment processor is unavailable. Repeat the same request with the same credential in a moment: it is never charged twice.',
      10,
      'unpaid',
    );
  }
  const row = pendingRequestRow(deps, {
    id,
    paymentIntentId: intent.id,
    fingerprint,
    now: isoNow(deps.clock),
    expiresAt: issued.expires_at,
  });

  try {
    await insertPaymentRequest(db, row);
  } catch (err) {
    // An identical retry running at the same time recorded it first: the same row, the same intent.
    if (!isUniqueViolation(err)) throw err;
  }
  return { row: (await findPaymentRequestById(db, id)) ?? row };
}
