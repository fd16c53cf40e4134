import { handleJob, type JobHandler } from '../../jobs/define.js';
import type { PeriodicTask } from '../../jobs/worker.js';
import { deleteAudioJob } from './audio-delete-job.js';
import { deleteUnreferencedAudio, type RecordingsDeps, sweepOrphanBlobs } from './service.js';

/** Delayed deletion of replaced and deleted audio (audio-delete-job.ts). */
export const recordingsJobs = (deps: RecordingsDeps): JobHandler[] => [
  handleJob(deleteAudioJob, (payload) => deleteUnreferencedAudio(deps, payload)),
];

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
