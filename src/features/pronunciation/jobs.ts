import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { generateGuidesJob } from './generate-job.js';
import { findGuides, findUserIdsAfter } from './repo.js';
import { generateGuides } from './generate-service.js';
import type { PronunciationDeps } from './service.js';

export const pronunciationJobs = (deps: PronunciationDeps): JobHandler[] => [
  handleJob(generateGuidesJob, async (payload) => {
    await generateGuides(deps, payload.user_ids);
  }),
];

const SWEEP_PAGE = 1000;

/**
 * After each start, one pass over every person in id order, a page per run, making the guides
 * that are missing (people stored before guides existed, or whose job was lost). Each run reads
 * one page of the primary key and the guides of that page: a few milliseconds. Then it rests.
 */
export function pronunciationTasks(deps: PronunciationDeps): PeriodicTask[] {
  let after = '';
  let done = false;
  return [
    {
      name: 'pronunciation.sweep-missing-guides',
      everyMs: 2_000,
      run: async () => {
        if (done) return;
        const ids = (await findUserIdsAfter(deps.db.kysely, after, SWEEP_PAGE)).map((row) => row.id);
        const guided = new Set((await findGuides(deps.db.kysely, ids)).map((guide) => guide.user_id));
        const missing = ids.filter((id) => !guided.has(id));
        if (missing.length > 0) {
          const made = await generateGuides(deps, missing);
          deps.logger.info({ made }, 'made missing pronunciation guides');
        }
        if (ids.length < SWEEP_PAGE) done = true;
        else after = ids[ids.length - 1] as string;
      },
    },
  ];
}
