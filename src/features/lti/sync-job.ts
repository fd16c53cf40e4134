/** The roster sync of one course (NRPS), queued on an instructor's launch and by the schedule. */
import { Type } from 'typebox';
import { defineJob } from '../../jobs/define.js';

export const rosterSyncJob = defineJob({
  name: 'lti.roster-sync',
  payload: Type.Object({ context_row_id: Type.String() }),
  maxAttempts: 5,
  backoff: (attempt) => Math.min(60 * 60_000, 30_000 * 4 ** (attempt - 1)),
});
