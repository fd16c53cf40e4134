/**
 * The definition of the `entity.published` callback job: enqueued by the publish (service.ts),
 * run by the handler bound in jobs.ts (callbacks.ts does the delivery). Kept apart from both so
 * that the service can enqueue it without importing the delivery code, which imports the service.
 */
import { Type } from 'typebox';
import { defineJob } from '../../jobs/define.js';

/** Delay before attempt n + 1 after attempt n failed: 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h. */
const BACKOFF_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000, 10_800_000, 21_600_000];

export const entityCallbackJob = defineJob({
  name: 'entities.callback',
  payload: Type.Object({ entity_id: Type.String({ minLength: 1 }) }),
  maxAttempts: BACKOFF_MS.length + 1,
  backoff: (attempt) => BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length) - 1] ?? 21_600_000,
  leaseMs: 30_000,
});
