/**
 * Background jobs are rows in our own database (an outbox). A job is enqueued in the same
 * transaction as the change that causes it, so it exists exactly when the change committed.
 * Workers claim due rows with a lease (`locked_until`, see src/db/lease-claim.ts); a worker that
 * dies loses its lease and the job runs again, so handlers must be idempotent (at-least-once).
 */
import { type Kysely, sql } from 'kysely';
import type { Static, TSchema } from 'typebox';
import type { Dialect } from '../db/index.js';
import { claimWithLease } from '../db/lease-claim.js';
import type { Database, JobsTable } from '../db/schema.js';
import type { TransactionScope } from '../db/transaction.js';
import { newId } from '../lib/ids.js';
import type { JobType } from './define.js';

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
  await tx.trx
    .insertInto('jobs')
    .values({ id, name: job.name, payload: JSON.stringify(payload), run_at: at, created_at: at })
    .execute();
  tx.wakeWorkerAfterCommit();
  return id;
}

export type JobRow = JobsTable & { attempts: number };

/** Claims up to `limit` due jobs among `names` for `workerId` until `leaseUntil`; each claim counts an attempt. */
export async function claimDueJobs(
  db: Kysely<Database>,
  dialect: Dialect,
  input: { workerId: string; now: Date; leaseUntil: Date; limit: number; names: string[] },
): Promise<JobRow[]> {
  if (input.names.length === 0) return [];
  const now = input.now.toISOString();
  return claimWithLease<JobRow>(db, dialect, {
    table: 'jobs',
    alias: 'j',
    due: sql`j.run_at <= ${now} and j.failed_at is null and j.name in (${sql.join(input.names)})`,
    orderBy: sql`j.run_at`,
    alsoSet: sql`attempts = attempts + 1`,
    workerId: input.workerId,
    now,
    leaseUntil: input.leaseUntil.toISOString(),
    limit: input.limit,
  });
}

export const completeJob = (db: Kysely<Database>, id: string, workerId: string) =>
  db.deleteFrom('jobs').where('id', '=', id).where('locked_by', '=', workerId).execute();

export const rescheduleJob = (db: Kysely<Database>, id: string, workerId: string, runAt: Date, error: string) =>
  db
    .updateTable('jobs')
    .set({ run_at: runAt.toISOString(), locked_by: null, locked_until: null, last_error: error.slice(0, 2000) })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();

export const failJob = (db: Kysely<Database>, id: string, workerId: string, at: Date, error: string) =>
  db
    .updateTable('jobs')
    .set({ failed_at: at.toISOString(), locked_by: null, locked_until: null, last_error: error.slice(0, 2000) })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();

/** Jobs due and not done, by type, with the oldest due time (the metrics' queue depth and age). */
export const dueJobDepth = (db: Kysely<Database>, now: Date) =>
  db
    .selectFrom('jobs')
    .select(['name', (eb) => eb.fn.countAll<number | string>().as('due'), (eb) => eb.fn.min('run_at').as('oldest')])
    .where('run_at', '<=', now.toISOString())
    .where('failed_at', 'is', null)
    .groupBy('name')
    .execute();
