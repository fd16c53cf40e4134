import { hostname } from 'node:os';
import type { JobDefinition, PeriodicTask } from '../../jobs/worker.js';
import { randomToken } from '../../lib/ids.js';
import { EVENT_DISPATCH_JOB } from '../events/service.js';
import { DeliveryRunner, type WebhookDeps } from './delivery.js';
import { dispatchEvent, purgeWebhookLogs } from './service.js';

const runners = new WeakMap<object, DeliveryRunner>();

/** One delivery runner per process (per deps), shared by the dispatch job and the poll task. */
export function deliveryRunner(deps: WebhookDeps): DeliveryRunner {
  let runner = runners.get(deps);
  if (!runner) {
    runner = new DeliveryRunner(deps, `${hostname()}:${process.pid}:${randomToken(4)}`);
    runners.set(deps, runner);
    warnAllowPrivate(deps);
  }
  return runner;
}

const warned = new WeakSet<object>();

/** Logged once per process at start (server and worker) when the SSRF protection is off. */
export function warnAllowPrivate(deps: WebhookDeps): void {
  if (!deps.config.webhooks.allowPrivateUrls || warned.has(deps)) return;
  warned.add(deps);
  deps.logger.warn(
    '!!! WEBHOOK_ALLOW_PRIVATE_URLS=true: webhooks may target http:// and private, loopback and cloud-metadata addresses. ' +
      'This disables SSRF protection; use it for local development and tests only. !!!',
  );
}

/**
 * `events.dispatch` {event_id}: fans the event out to matching webhooks. With `runner`, the
 * new deliveries are attempted right away instead of at the next poll.
 */
export function dispatchEventJob(deps: WebhookDeps, runner?: DeliveryRunner): JobDefinition<{ event_id: string }> {
  return {
    name: EVENT_DISPATCH_JOB,
    maxAttempts: 20,
    backoffMs: (attempt) => Math.min(attempt * 5_000, 300_000),
    leaseMs: 30_000,
    async handle(payload) {
      const matched = await dispatchEvent(deps, payload.event_id);
      if (matched > 0 && runner) void runner.kick();
    },
  };
}

export const webhookJobs = (deps: WebhookDeps): JobDefinition<any>[] => [dispatchEventJob(deps, deliveryRunner(deps))];

export const webhookTasks = (deps: WebhookDeps): PeriodicTask[] => {
  const runner = deliveryRunner(deps);
  return [
    { name: 'webhooks.deliver', everyMs: deps.config.webhooks.pollMs, run: () => runner.kick() },
    { name: 'webhooks.purge-logs', everyMs: 60 * 60_000, run: async () => void (await purgeWebhookLogs(deps)) },
  ];
};
