import type { Deps } from '../../deps.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { eraseExpiredCollections } from './service.js';

/** Erases archived collections whose retention window closed; safe on every worker (row locks). */
export const erasureTasks = (deps: Deps): PeriodicTask[] => [
  {
    name: 'erasure.retention',
    everyMs: 10 * 60_000,
    run: async () => {
      const erased = await eraseExpiredCollections(deps, deps.config.archiveRetentionDays);
      if (erased > 0) deps.logger.info({ erased }, 'erased archived collections past their retention window');
    },
  },
];
