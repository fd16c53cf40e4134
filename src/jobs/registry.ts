/**
 * Every background job and periodic task of the service, in one list. Job types are defined
 * with `defineJob` next to the code that enqueues them; features bind their handlers in their
 * own `jobs.ts` (`handleJob`); this file wires those handlers to one worker. A job type whose
 * handler is not listed here is never claimed.
 *
 * State that lives as long as the worker (the webhook delivery runner, the message sender) is built here, once per
 * worker, and handed to the features that share it.
 */
import type { Deps } from '../deps.js';
import { dashboardTasks } from '../features/dashboard/jobs.js';
import { agentApiJobs, agentApiTasks } from '../features/agent-api/jobs.js';
import { erasureTasks } from '../features/erasure/jobs.js';
import { idempotencyTasks } from '../features/idempotency/jobs.js';
import { ltiJobs, ltiTasks } from '../features/lti/jobs.js';
import { createMessageSender, invitationTasks } from '../features/invitations/jobs.js';
import { pronunciationJobs, pronunciationTasks } from '../features/pronunciation/jobs.js';
import { recordingsJobs, recordingsTasks } from '../features/recordings/jobs.js';
import { createDeliveryRunner, webhookJobs, webhookTasks } from '../features/webhooks/jobs.js';
import type { JobHandler } from './define.js';
import { JobWorker, type PeriodicTask } from './worker.js';

export function createWorker(deps: Deps, options: { pollMs?: number } = {}): JobWorker {
  const deliveries = createDeliveryRunner(deps);
  const messages = createMessageSender(deps);
  const jobs: JobHandler[] = [
    ...webhookJobs(deps, deliveries),
    ...agentApiJobs(deps),
    ...recordingsJobs(deps),
    ...pronunciationJobs(deps),
    ...ltiJobs(deps),
  ];
  const periodic: PeriodicTask[] = [
    ...idempotencyTasks(deps),
    ...recordingsTasks(deps),
    ...pronunciationTasks(deps),
    ...webhookTasks(deps, deliveries),
    ...agentApiTasks(deps),
    ...dashboardTasks(deps),
    ...erasureTasks(deps),
    ...invitationTasks(deps, messages),
    ...ltiTasks(deps),
  ];
  return new JobWorker({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger.child({ component: 'worker' }),
    jobs,
    periodic,
    wakeup: deps.jobsWakeup,
    ...options,
  });
}
