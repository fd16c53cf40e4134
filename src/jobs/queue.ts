/**
 * Background jobs are rows in our own database (an outbox). A job is enqueued in the same
 * transaction as the change that causes it, so it exists exactly when the change committed.
 * Workers claim due rows with a lease (`locked_until`, see src/db/lease-claim.ts); a worker that
 * dies loses its lease and the job runs again, so handlers must be idempotent (at-least-once).
 * The queries are in ./repo.ts.
 */
import type { Static, TSchema } from 'typebox';
import type { TransactionScope } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import type { JobType } from './define.js';
import { insertJob } from './repo.js';

export interface EnqueueOptions {
  /** When the job becomes due; now (the transaction's clock) by default. */
  runAt?: Date;
  id?: string;
}

/**
 * Enqueues `job` in the caller's transaction (see src/db/transaction.ts) and wakes this
 * process's worker once the transaction commits; returns the job id. The payload's type is the
 * job's schema.
 */
export async function enqueue<Payload extends TSchema>(
  tx: TransactionScope,
  job: JobType<Payload>,
  payload: Static<Payload>,
  options: EnqueueOptions = {},
): Promise<string> {
  const id = options.id ?? newId();
  const at = (options.runAt ?? tx.clock.now()).toISOString();
  await insertJob(tx.trx, { id, name: job.name, payload: JSON.stringify(payload), runAt: at });
  tx.wakeWorkerAfterCommit();
  return id;
}
