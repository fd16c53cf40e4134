/**
 * The definition of the delayed audio deletion: a replaced or deleted recording's file (or every
 * file of a deleted person) is removed by this job, not at commit. Until then another process may
 * still hold the old file in its play-link cache, or a listener may have just been redirected to
 * it; the job runs once every cache has expired and that redirect has been followed.
 */
import { Type } from 'typebox';
import { defineJob } from '../../jobs/define.js';

/** How long after the change the file goes: the play-link cache's lifetime plus a minute. */
export const audioDeleteDelayMs = (cacheTtlMs: number): number => cacheTtlMs + 60_000;

export const deleteAudioJob = defineJob({
  name: 'recordings.delete-audio',
  payload: Type.Union([
    Type.Object({ key: Type.String({ minLength: 1 }) }),
    Type.Object({ prefix: Type.String({ minLength: 1 }) }),
  ]),
  maxAttempts: 6,
  backoff: (attempt) => Math.min(60_000 * 2 ** (attempt - 1), 3_600_000),
});
