import type { PeriodicTask } from '../../jobs/worker.js';
import { type RecordingsDeps, sweepOrphanBlobs } from './service.js';

/** Hourly: audio files left behind by interrupted uploads or failed deletions. */
export const recordingsTasks = (deps: RecordingsDeps): PeriodicTask[] => [
  {
    name: 'recordings.sweep-orphan-blobs',
    everyMs: 60 * 60 * 1000,
    run: async () => {
      const deleted = await sweepOrphanBlobs(deps);
      if (deleted > 0) deps.logger.info({ deleted }, 'deleted orphan audio files');
    },
  },
];
