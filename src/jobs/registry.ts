/**
 * Every background job and periodic task of the service, in one list. Features export their
 * job definitions from their own `jobs.ts`; this file wires them to one worker.
 */
import type { Deps } from '../deps.js';
import { dashboardTasks } from '../features/dashboard/jobs.js';
import { entitiesJobs, entitiesTasks } from '../features/entities/jobs.js';
import { idempotencyTasks } from '../features/idempotency/jobs.js';
import { recordingsTasks } from '../features/recordings/jobs.js';
import { webhookJobs, webhookTasks } from '../features/webhooks/jobs.js';
import { type JobDefinition, JobWorker, type PeriodicTask } from './worker.js';

export function jobDefinitions(deps: Deps): JobDefinition<any>[] {
  return [...webhookJobs(deps), ...entitiesJobs(deps)];
}

export function periodicTasks(deps: Deps): PeriodicTask[] {
  return [
    ...idempotencyTasks(deps),
    ...recordingsTasks(deps),
    ...webhookTasks(deps),
    ...entitiesTasks(deps),
    ...dashboardTasks(deps),
  ];
}

export function createWorker(deps: Deps, options: { pollMs?: number } = {}): JobWorker {
  return new JobWorker({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger.child({ component: 'worker' }),
    jobs: jobDefinitions(deps),
    periodic: periodicTasks(deps),
    wakeup: deps.jobsWakeup,
    ...options,
  });
}
