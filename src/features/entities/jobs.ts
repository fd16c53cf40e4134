/**
 * Background work of the entities feature: the periodic payment sweep (expiry, refunds) and
 * the `entity.published` callback deliveries.
 */
import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { entityCallbackJob } from './callback-job.js';
import { deliverEntityCallback } from './callbacks.js';
import type { EntitiesContext } from './context.js';
import { sweepPaymentRequests } from './sweep.js';

export function entitiesTasks(context: EntitiesContext): PeriodicTask[] {
  return [
    {
      name: 'entities.sweep-payments',
      everyMs: 60_000,
      run: async () => {
        await sweepPaymentRequests(context);
      },
    },
  ];
}

export function entitiesJobs(context: EntitiesContext): JobHandler[] {
  return [handleJob(entityCallbackJob, (payload, { attempt }) => deliverEntityCallback(context, payload.entity_id, attempt))];
}
