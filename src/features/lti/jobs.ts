import type { Deps } from '../../deps.js';
import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { deleteOldLaunchNoncesNow } from './launch-service.js';
import { syncAllRosters, syncCourseRoster } from './roster-sync.js';
import { rosterSyncJob } from './sync-job.js';
import { maintainToolKeys } from './tool-keys.js';

/** How often every course's roster is read again. */
const ROSTER_SYNC_EVERY_MS = 6 * 60 * 60_000;

export const ltiJobs = (deps: Deps): JobHandler[] => [
  handleJob(rosterSyncJob, async (payload) => void (await syncCourseRoster(deps, payload.context_row_id))),
];

export const ltiTasks = (deps: Deps): PeriodicTask[] => [
  /** Every course's roster, so people who joined or left the course between launches are seen. */
  { name: 'lti.roster-sync-all', everyMs: ROSTER_SYNC_EVERY_MS, run: () => syncAllRosters(deps, ROSTER_SYNC_EVERY_MS * 0.9) },
  { name: 'lti.tool-keys', everyMs: 60 * 60_000, run: () => maintainToolKeys(deps) },
  { name: 'lti.purge-launch-nonces', everyMs: 60 * 60_000, run: () => deleteOldLaunchNoncesNow(deps) },
];
