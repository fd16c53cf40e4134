/** Giving an agent's payment back, from the publish (a failure or a name taken meanwhile) and from the sweep. */
import { isoNow } from '../../lib/clock.js';
import type { Deps } from '../../deps.js';
import { findPaymentRequestByIntent, moveRequestState } from './repo.js';
import { refundX402Request } from './x402-settlement.js';
import { X402_PROVIDER } from './x402.js';

/**
 * Refunds the payment of one request exactly once (P9): the state move to `refunding` admits a
 * single caller, and the processor call carries the key `refund:<pi>` (P16), so even a resumed
 * call (after a crash) cannot refund twice. A failed call leaves `refunding`; the sweeper resumes it.
 */
export async function refundPaymentRequest(
  deps: Pick<Deps, 'db' | 'clock' | 'payments' | 'logger' | 'metrics'>,
  paymentIntentId: string,
  reason: string,
  options: { resume?: boolean } = {},
): Promise<boolean> {
  const now = isoNow(deps.clock);
  const db = deps.db.kysely;
  const row = await findPaymentRequestByIntent(db, paymentIntentId);
  if (row?.provider === X402_PROVIDER) return refundX402Request(deps, row, reason, options);
  const moved = await moveRequestState(db, {
    paymentIntentId,
    // Only the sweeper resumes an unfinished refund; everyone else must win the move.
    from: options.resume ? ['refunding'] : ['pending', 'claimed'],
    to: 'refunding',
    now,
    lastError: reason,
  });
  if (!moved) return false;
  try {
    await deps.payments.refundIntent(paymentIntentId, `refund:${paymentIntentId}`);
  } catch (err) {
    deps.logger.error({ err, payment_intent: paymentIntentId }, 'refund failed; the sweeper will retry');
    return false;
  }
  await moveRequestState(db, { paymentIntentId, from: ['refunding'], to: 'refunded', now: isoNow(deps.clock) });
  deps.metrics.payments.inc({ outcome: 'refunded' });
  deps.logger.info({ payment_intent: paymentIntentId, reason }, 'payment refunded');
  return true;
}
