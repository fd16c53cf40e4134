/**
 * The jobs table's queries: inserting a job (in the caller's transaction, see `enqueue`),
 * claiming due ones with a lease (src/db/lease-claim.ts), and finishing, rescheduling or failing
 * a claimed one. Only the worker that holds a job's lease may finish it (`locked_by`).
 */
import { type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../db/index.js';
import { claimWithLease } from '../db/lease-claim.js';
import type { Database, JobsTable } from '../db/schema.js';

export const insertJob = (trx: Transaction<Database>, job: { id: string; name: string; payload: string; runAt: string }) =>
  trx
    .insertInto('jobs')
    .values({ id: job.id, name: job.name, payload: job.payload, run_at: job.runAt, created_at: job.runAt })
    .execute();

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
