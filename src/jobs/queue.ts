/**
 * Background jobs are rows in our own database (an outbox). A job is enqueued in the same
 * transaction as the change that causes it, so it exists exactly when the change committed.
 * Workers claim due rows with a lease (`locked_until`); a worker that dies loses its lease and
 * the job runs again, so handlers must be idempotent (at-least-once delivery).
 */
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../db/index.js';
import type { Database, JobsTable } from '../db/schema.js';
import { newId } from '../lib/ids.js';

export interface EnqueueOptions {
  name: string;
  payload: unknown;
  runAt: Date;
  id?: string;
}

/** Enqueue inside the caller's transaction (pass the transaction as `db`). */
export async function enqueueJob(db: Kysely<Database>, options: EnqueueOptions): Promise<string> {
  const id = options.id ?? newId();
  const at = options.runAt.toISOString();
  await db
    .insertInto('jobs')
    .values({ id, name: options.name, payload: JSON.stringify(options.payload), run_at: at, created_at: at })
    .execute();
  return id;
}

export type JobRow = JobsTable & { attempts: number };

/**
 * Claims up to `limit` due jobs for `workerId` until `leaseUntil`. On PostgreSQL rows locked by
 * another claimer are skipped (`FOR UPDATE SKIP LOCKED`), so any number of workers can poll;
 * SQLite serialises writers, so the same statement without the locking clause is enough.
 */
export async function claimDueJobs(
  db: Kysely<Database>,
  dialect: Dialect,
  input: { workerId: string; now: Date; leaseUntil: Date; limit: number; names: string[] },
): Promise<JobRow[]> {
  if (input.names.length === 0) return [];
  const now = input.now.toISOString();
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<JobRow>`
    update jobs set locked_by = ${input.workerId}, locked_until = ${input.leaseUntil.toISOString()},
      attempts = attempts + 1
    where id in (
      select id from jobs
      where run_at <= ${now} and failed_at is null
        and (locked_until is null or locked_until < ${now})
        and name in (${sql.join(input.names)})
      order by run_at
      limit ${input.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
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
