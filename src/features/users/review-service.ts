/**
 * Review of recordings: an organiser approves a person's recording or asks for a new one with a
 * note, which the person then reads on their recorder page. The next recording clears the note
 * and starts over at `recorded` (src/features/recordings/service.ts). A request for a new recording
 * is also mailed to the person with the note (src/features/invitations). Where the collection has
 * `review_required`, only approved recordings count in `recorded_count`. Recordings the organiser
 * played in the dashboard (`listened_at`, src/features/recordings/listened-service.ts) can be
 * approved together.
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { RecordingStatus } from '../collections/schemas.js';
import { countRecordingStatusChange, requireLiveCollection } from '../collections/service.js';
import { type InvitationsDeps, queueRerecordMail } from '../invitations/service.js';
import { listenedAwaitingReview } from '../recordings/listened-service.js';
import { lockUser, updateUserRow } from './repo.js';
import type { ReviewBody, User } from './schemas.js';
import { toUser, type UsersDeps } from './service.js';

/** What the audit log keeps of a decision: which one, and the note asking for a new recording. */
export const reviewAuditDetail = (input: ReviewBody): Record<string, string> => ({
  decision: input.decision,
  ...(input.decision === 'request_rerecord' && input.note ? { note: input.note.trim() } : {}),
});

/**
 * Records the organiser's decision on the person's current recording and answers the updated
 * User. `approve` (no note) → `approved`; `request_rerecord` (note required) → `needs_rerecord`.
 * Deciding again is allowed (an approval can be withdrawn, a request approved after all); the
 * same decision twice changes nothing but the note. 409 `no_recording_to_review` when the person
 * has no recording.
 */
export async function reviewRecording(
  deps: UsersDeps & Pick<InvitationsDeps, 'channels'>,
  accountId: string,
  collectionId: string,
  userId: string,
  input: ReviewBody,
): Promise<User> {
  const note = input.note ?? null;
  if (input.decision === 'approve' && note !== null) {
    throw new AppError('parameter_invalid', 'A note goes only with "request_rerecord"; approve without one.', { param: 'note' });
  }
  if (input.decision === 'request_rerecord' && (note === null || note.trim() === '')) {
    throw new AppError('parameter_missing', 'Say what the new recording should change: "note" is required.', { param: 'note' });
  }
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId)) throw notFound('user', 'user_id');
  const status: RecordingStatus = input.decision === 'approve' ? 'approved' : 'needs_rerecord';
  const at = deps.clock.now().toISOString();
  const row = await withTransaction(deps, async (tx) => {
    const { trx } = tx;
    // Takes the person's row lock: a recording arriving at the same moment is reviewed after it, or not at all.
    const user = await lockUser(trx, collection.id, userId, at);
    if (!user) throw notFound('user', 'user_id');
    if (user.recording_status === 'none') {
      throw new AppError('no_recording_to_review', 'This person has no recording to review yet.', { param: 'user_id' });
    }
    const updated = await updateUserRow(trx, user.id, { recording_status: status, review_note: note?.trim() ?? null });
    await countRecordingStatusChange(trx, collection.id, user.recording_status, status);
    // A new request (or a new note) is mailed to the person; the same request again is not.
    const trimmed = note?.trim() ?? null;
    if (status === 'needs_rerecord' && trimmed !== null && (user.recording_status !== status || user.review_note !== trimmed)) {
      await queueRerecordMail(tx, deps.channels.channelFor, {
        accountId: collection.account_id,
        collectionId: collection.id,
        userId: user.id,
        unsubscribed: user.unsubscribed_at !== null,
        note: trimmed,
      });
    }
    return updated;
  });
  return toUser(deps.config.baseUrl, row, true);
}

/**
 * Approves every recording of the collection that awaits a decision and was played in the
 * dashboard, in one transaction, and answers who was approved (id and name, for the audit log).
 * Each person is checked again under their row lock: a new recording that arrived meanwhile
 * cleared its marker and is left for review.
 */
export async function approveListenedRecordings(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
): Promise<{ id: string; display_name: string }[]> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const candidates = await listenedAwaitingReview(deps, accountId, collection.id);
  if (candidates.length === 0) return [];
  const at = deps.clock.now().toISOString();
  return withTransaction(deps, async ({ trx }) => {
    const approved: { id: string; display_name: string }[] = [];
    for (const candidate of candidates) {
      const user = await lockUser(trx, collection.id, candidate.id, at);
      if (!user || user.recording_status !== 'recorded' || user.listened_at === null) continue;
      await updateUserRow(trx, user.id, { recording_status: 'approved', review_note: null });
      approved.push({ id: user.id, display_name: user.display_name });
    }
    if (approved.length > 0) await countRecordingStatusChange(trx, collection.id, 'recorded', 'approved', approved.length);
    return approved;
  });
}
