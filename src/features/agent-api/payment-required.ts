/**
 * The 402 of the agent API: a new payment intent bound to the request's fingerprint (P2, P10,
 * P14, P15), answered with the spec's instruction in the body and the same intent as MPP
 * challenges in `WWW-Authenticate`.
 */
import type { Deps } from '../../deps.js';
import type { AppError } from '../../errors.js';
import type { PaymentIntentView } from '../../integrations/payments/provider.js';
import { newId } from '../../lib/ids.js';
import { paymentRequired, temporarilyUnavailable } from './agent-errors.js';
import { challengesFor, wwwAuthenticate } from './mpp.js';
import { PAYMENT_DESCRIPTION, PRICE, PURPOSE } from './price.js';
import { insertPaymentRequest, type PaymentRequestRow } from './repo.js';
import { pendingRequestRow } from './standard-credential.js';
import { agentApiUrls } from './urls.js';
import { paymentRequiredHeader } from './x402.js';

export interface PaymentInstruction {
  amount: string;
  currency: string;
  address: string;
  reference: string;
  expires_at: string;
  processor: string;
  publishable_key?: string;
  confirm_url?: string;
}

/** Rejects (throws) when the unpaid path is over its rate limit (P15); called before any intent is made. */
export type AdmitUnpaid = () => Promise<void>;

/** Issues a new intent bound to `fingerprint` and answers 402 with it (always throws). */
export async function createInstruction(
  deps: Deps,
  fingerprint: string,
  admitUnpaid: AdmitUnpaid,
  message: string,
): Promise<never> {
  await admitUnpaid();
  // The agent pays next: load the speech engine meanwhile (not at boot: most servers never publish one).
  deps.speech.prepare?.();
  deps.metrics.payments.inc({ outcome: 'instruction_issued' });
  const id = newId();
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + deps.config.entityInstructionTtlSeconds * 1000).toISOString();
  let intent: PaymentIntentView;
  try {
    intent = await deps.payments.createIntent({
      amountMinor: PRICE.amountMinor,
      currency: PRICE.currency,
      description: PAYMENT_DESCRIPTION,
      metadata: { purpose: PURPOSE, request_fingerprint: fingerprint, request_id: id, expires_at: expiresAt },
      idempotencyKey: `pi_create:${id}`,
    });
  } catch (err) {
    deps.logger.error({ err }, 'could not create a payment intent');
    throw temporarilyUnavailable('The payment processor is unavailable. Retry in a moment.', 10, 'unpaid');
  }
  const row = pendingRequestRow(deps, {
    id,
    paymentIntentId: intent.id,
    fingerprint,
    now: now.toISOString(),
    expiresAt,
  });

  await insertPaymentRequest(deps.db.kysely, row);
  throw await paymentRequiredFor(deps, row, intent, message);
}

/**
 * The 402: the spec's instruction in the body, the same intent as MPP challenges in
 * `WWW-Authenticate`, and (when configured) an x402 offer for the same request in `PAYMENT-REQUIRED`.
 */
export async function paymentRequiredFor(
  deps: Deps,
  row: PaymentRequestRow,
  intent: PaymentIntentView,
  message: string,
  options: { retryAfter?: number } = {},
): Promise<AppError> {
  const challenges = await challengesFor(deps, { requestId: row.id, expiresAt: row.expires_at, intent });
  return paymentRequired(instructionOf(deps, row, intent), message, {
    ...options,
    challenges,
    wwwAuthenticate: await wwwAuthenticate(challenges),
    x402Offer: paymentRequiredHeader(deps, row.id, message),
  });
}

function instructionOf(deps: Deps, row: PaymentRequestRow, intent: PaymentIntentView): PaymentInstruction {
  return {
    amount: PRICE.amount,
    currency: PRICE.displayCurrency,
    address: intent.clientSecret ?? '',
    reference: intent.id,
    expires_at: row.expires_at,
    processor: deps.payments.name,
    ...(deps.payments.publishableKey ? { publishable_key: deps.payments.publishableKey } : {}),
    ...(deps.payments.name === 'sandbox' ? { confirm_url: agentApiUrls(deps).sandboxConfirm(intent.id) } : {}),
  };
}
