/**
 * Background work of the entities feature: the periodic payment sweep (expiry, refunds) and
 * the `entity.published` callback deliveries.
 */
import type { Deps } from '../../deps.js';
import type { JobDefinition, PeriodicTask } from '../../jobs/worker.js';
import { callbackJob } from './callbacks.js';
import { entitiesContext } from './context.js';
import { sweepPaymentRequests } from './sweep.js';

export function entitiesTasks(deps: Deps): PeriodicTask[] {
  return [
    {
      name: 'entities.sweep-payments',
      everyMs: 60_000,
      run: async () => {
        await sweepPaymentRequests(entitiesContext(deps));
      },
    },
  ];
}

export function entitiesJobs(deps: Deps): JobDefinition<any>[] {
  return [callbackJob(entitiesContext(deps))];
}
