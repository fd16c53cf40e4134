/** Shared set-up for webhook tests: accounts, events recorded like the recordings feature does, and a dispatch worker. */
import { withTransaction } from '../../src/db/transaction.js';
import { findAccountByEmail } from '../../src/features/accounts/repo.js';
import { recordEvent } from '../../src/features/events/service.js';
import { deliverDueWebhooks, type WebhookDeps } from '../../src/features/webhooks/delivery.js';
import { dispatchEventHandler } from '../../src/features/webhooks/jobs.js';
import { JobWorker } from '../../src/jobs/worker.js';
import type { TestApp } from './app.js';

export async function accountIdOf(t: TestApp, email: string): Promise<string> {
  const account = await findAccountByEmail(t.deps.db.kysely, email);
  if (!account) throw new Error(`no account ${email}`);
  return account.id;
}

export function recordingData(n = 1) {
  return {
    collection_id: '6f1c1c1e-2b2a-4c1e-9d57-0c1b8f0e2a11',
    user_id: `0b7e5d8a-1f3c-4e59-8a0d-5c6e7f8a9b${String(n).padStart(2, '0')}`,
    email: `ada${n}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    play_link: `https://voicename.test/p/tok${n}`,
    recorded_at: '2026-01-15T11:59:58.000Z',
  };
}

/** Records an event in its own transaction, as the recordings feature does with its change. */
export async function recordTestEvent(
  t: TestApp,
  accountId: string,
  type = 'recording.completed',
  data: Record<string, unknown> = recordingData(),
) {
  return withTransaction(t.deps, (tx) => recordEvent(tx, { accountId, type, data, at: t.deps.clock.now() }));
}

/** Runs the due `events.dispatch` jobs (fan-out), without sending anything. */
export async function dispatchDue(t: TestApp): Promise<number> {
  const worker = new JobWorker({
    db: t.deps.db,
    clock: t.deps.clock,
    logger: t.deps.logger,
    jobs: [dispatchEventHandler(t.deps)],
  });
  return worker.runDue();
}

export const deliverDue = (deps: WebhookDeps, workerId = 'test-worker') => deliverDueWebhooks(deps, { workerId });

/** Delivery passes until none finds work (a webhook sends a few at a time); returns how many were sent. */
export async function deliverAll(deps: WebhookDeps): Promise<number> {
  let total = 0;
  for (let n = await deliverDue(deps); n > 0; n = await deliverDue(deps)) total += n;
  return total;
}
