import type { Deps } from '../../deps.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { purgeExpiredIdempotencyKeys } from './service.js';

export const idempotencyTasks = (deps: Deps): PeriodicTask[] => [
  { name: 'idempotency.purge-expired', everyMs: 10 * 60_000, run: async () => void (await purgeExpiredIdempotencyKeys(deps)) },
];
