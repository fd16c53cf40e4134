/** Runs the background jobs due `laterMs` from now, as the worker would then (delayed audio deletion, …). */
import type { Deps } from '../../src/deps.js';
import { createWorker } from '../../src/jobs/registry.js';
import { ManualClock } from '../../src/lib/clock.js';

export async function runJobsLater(deps: Deps, laterMs: number): Promise<number> {
  const worker = createWorker({ ...deps, clock: new ManualClock(new Date(Date.now() + laterMs)) });
  let total = 0;
  for (let ran = await worker.runDue(); ran > 0; ran = await worker.runDue()) total += ran;
  return total;
}

/** Past the delay of `recordings.delete-audio` (the play-link cache lifetime plus a minute). */
export const AFTER_AUDIO_DELETE_DELAY_MS = 10 * 60 * 1000;
