/**
 * Review of recordings: an organiser approves a person's recording or asks for a new one with a
 * note, which the person then reads on their recorder page. The next recording clears the note
 * and starts over at `recorded` (src/features/recordings/service.ts). A request for a new recording
 * is also mailed to the person with the note (src/features/invitations). Where the collection has
 * `review_required`, only approved recordings count in `recorded_count`.
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { RecordingStatus } from '../collections/schemas.js';
import { countRecordingStatusChange, requireLiveCollection } from '../collections/service.js';
import { type InvitationsDeps, queueRerecordMail } from '../invitations/service.js';
import { lockUser, updateUserRow } from './repo.js';
import type { ReviewBody, User } from './schemas.js';
import { toUser, type UsersDeps } from './service.js';

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
