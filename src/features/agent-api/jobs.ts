/**
 * Background work of the agent API: the periodic payment sweep (expiry, refunds) and
 * the `entity.published` callback deliveries.
 */
import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { entityCallbackJob } from './callback-job.js';
import { deliverEntityCallback } from './callbacks.js';
import type { Deps } from '../../deps.js';
import { sweepPaymentRequests } from './sweep.js';

export function agentApiTasks(deps: Deps): PeriodicTask[] {
  return [
    {
      name: 'entities.sweep-payments',
      everyMs: 60_000,
      run: async () => {
        await sweepPaymentRequests(deps);
      },
    },
  ];
}

export function agentApiJobs(deps: Deps): JobHandler[] {
  return [handleJob(entityCallbackJob, (payload, { attempt }) => deliverEntityCallback(deps, payload.entity_id, attempt))];
}
