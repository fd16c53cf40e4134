/**
 * Background work of the webhooks feature: the `events.dispatch` handler (fan-out of an event to
 * the matching webhooks), the delivery passes and the log purge. The delivery runner is built
 * once per worker by `createWorker` and shared by the dispatch handler and the delivery task.
 */
import { hostname } from 'node:os';
import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { randomToken } from '../../lib/ids.js';
import { eventDispatchJob } from '../events/service.js';
import { DeliveryRunner, type WebhookDeps } from './delivery.js';
import { dispatchEvent, purgeWebhookLogs } from './deliveries-service.js';

export const createDeliveryRunner = (deps: WebhookDeps): DeliveryRunner =>
  new DeliveryRunner(deps, `${hostname()}:${process.pid}:${randomToken(4)}`);

/**
 * `events.dispatch` {event_id}: fans the event out to matching webhooks. With `runner`, the
 * new deliveries are attempted right away instead of at the next poll.
 */
export const dispatchEventHandler = (deps: WebhookDeps, runner?: DeliveryRunner): JobHandler =>
  handleJob(eventDispatchJob, async (payload) => {
    const matched = await dispatchEvent(deps, payload.event_id);
    if (matched > 0 && runner) void runner.kick();
  });

export const webhookJobs = (deps: WebhookDeps, runner: DeliveryRunner): JobHandler[] => [dispatchEventHandler(deps, runner)];

export const webhookTasks = (deps: WebhookDeps, runner: DeliveryRunner): PeriodicTask[] => [
  // On wake-up too: a re-enabled webhook's deliveries are due the moment the change commits.
  {
    name: 'webhooks.deliver',
    everyMs: deps.config.webhooks.pollMs,
    onWakeup: true,
    run: () => runner.kick(),
    // Sends under way end and are recorded before the process exits.
    stop: () => runner.drain(),
  },
  { name: 'webhooks.purge-logs', everyMs: 60 * 60_000, run: async () => void (await purgeWebhookLogs(deps)) },
];
