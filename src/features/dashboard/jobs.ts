import type { Deps } from '../../deps.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { purgeDashboardAuth } from './service.js';

export const dashboardTasks = (deps: Deps): PeriodicTask[] => [
  { name: 'dashboard.purge-expired-auth', everyMs: 30 * 60_000, run: async () => void (await purgeDashboardAuth(deps)) },
];
