/**
 * The background making of guides: `pronunciation.generate` for people created or renamed (queued
 * in the same transaction as the change), and a sweep that finds people without a guide (those
 * stored before guides existed) once after each start.
 */
import { Type } from 'typebox';
import type { TransactionScope } from '../../db/transaction.js';
import { defineJob } from '../../jobs/define.js';
import { enqueue } from '../../jobs/queue.js';

/** People per job: one job's guides take about a second of the engine's time. */
export const GUIDES_PER_JOB = 200;

export const generateGuidesJob = defineJob({
  name: 'pronunciation.generate',
  payload: Type.Object({ user_ids: Type.Array(Type.String({ maxLength: 64 }), { minItems: 1, maxItems: GUIDES_PER_JOB }) }),
  maxAttempts: 5,
  backoff: (attempt) => Math.min(10_000 * 2 ** (attempt - 1), 600_000),
});

/** Queues guides for these people in the caller's transaction (a no-op for none). */
export async function queueGuides(tx: TransactionScope, userIds: readonly string[]): Promise<void> {
  for (let i = 0; i < userIds.length; i += GUIDES_PER_JOB) {
    await enqueue(tx, generateGuidesJob, { user_ids: userIds.slice(i, i + GUIDES_PER_JOB) });
  }
}
