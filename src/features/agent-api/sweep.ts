/**
 * The periodic sweep of payment requests: cancels expired unpaid intents (P10), refunds paid
 * intents nobody claimed within the grace period and claims whose process died (P11), and
 * finishes refunds whose processor call failed (P9).
 */
import type { Deps } from '../../deps.js';
import { deleteCanceledRequestsBefore, listRequestsToSweep, moveRequestState, type PaymentRequestRow } from './repo.js';
import { refundPaymentRequest } from './refund.js';
import { sweepX402Request } from './x402-settlement.js';
import { X402_PROVIDER } from './x402.js';

/** Canceled (never paid) payment requests are kept this long, then deleted by the sweep. */
export const CANCELED_RETENTION_DAYS = 30;

export interface SweepReport {
  canceled: number;
  refunded: number;
  waiting: number;
  /** Canceled requests older than CANCELED_RETENTION_DAYS, deleted. */
  purged: number;
}

type SweepDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'payments' | 'logger' | 'metrics'>;

export async function sweepPaymentRequests(deps: SweepDeps, limit = 100): Promise<SweepReport> {
  const now = deps.clock.now();
  const graceMs = deps.config.entityRefundGraceSeconds * 1000;
  const rows = await listRequestsToSweep(deps.db.kysely, {
    now: now.toISOString(),
    staleClaimBefore: new Date(now.getTime() - Math.max(graceMs, 10 * 60_000)).toISOString(),
    limit,
  });
  const report: SweepReport = { canceled: 0, refunded: 0, waiting: 0, purged: 0 };
  for (const row of rows) {
    try {
      await sweepOne(deps, row, now, graceMs, report);
    } catch (err) {
      deps.logger.error({ err, payment_intent: row.payment_intent_id }, 'payment sweep failed for one request');
    }
  }
  report.purged = await deleteCanceledRequestsBefore(
    deps.db.kysely,
    new Date(now.getTime() - CANCELED_RETENTION_DAYS * 86_400_000).toISOString(),
  );
  return report;
}

async function sweepOne(deps: SweepDeps, row: PaymentRequestRow, now: Date, graceMs: number, report: SweepReport) {
  const reference = row.payment_intent_id;
  if (row.provider === X402_PROVIDER) {
    report[await sweepX402Request(deps, row, now, graceMs)]++;
    return;
  }
  if (row.state === 'refunding') {
    if (await refundPaymentRequest(deps, reference, 'resuming an unfinished refund', { resume: true })) report.refunded++;
    return;
  }
  const intent = await deps.payments.retrieveIntent(reference);
  if (!intent || intent.status === 'canceled') {
    await moveRequestState(deps.db.kysely, {
      paymentIntentId: reference,
      from: [row.state],
      to: 'canceled',
      now: now.toISOString(),
    });
    report.canceled++;
    return;
  }
  if (intent.status === 'succeeded') {
    // Paid: the agent may still come back during the grace period; after it, the money goes back.
    const deadline = Date.parse(row.state === 'claimed' ? (row.claimed_at ?? row.expires_at) : row.expires_at) + graceMs;
    if (now.getTime() < deadline) {
      report.waiting++;
      return;
    }
    if (intent.amountRefunded > 0) {
      await moveRequestState(deps.db.kysely, {
        paymentIntentId: reference,
        from: [row.state],
        to: 'refunded',
        now: now.toISOString(),
      });
      return;
    }
    if (await refundPaymentRequest(deps, reference, 'paid but never used')) report.refunded++;
    return;
  }
  const current = await deps.payments.cancelIntent(reference);
  if (current.status === 'succeeded') {
    report.waiting++;
    return;
  }
  await moveRequestState(deps.db.kysely, {
    paymentIntentId: reference,
    from: ['pending'],
    to: 'canceled',
    now: now.toISOString(),
  });
  report.canceled++;
}
