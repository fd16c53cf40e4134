/**
 * The "listened" marker of review at speed: the dashboard records when (and by which member) a
 * person's current recording was played there, so recordings that were heard can be approved
 * together. A new recording or its deletion clears the marker (`setRecordingStatus`), so a take
 * nobody heard is never approved as heard.
 */
import type { Db } from '../../db/index.js';
import { AppError, notFound } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid } from '../../lib/ids.js';
import { requireLiveCollection } from '../collections/service.js';
import { countListenedAwaiting, listListenedAwaiting, setListened, userIsInCollection } from './repo.js';

type ListenedDeps = { db: Db; clock: Clock };

/**
 * Marks the person's current recording as played by `memberEmail` now, and answers when. 404
 * outside the account's live collections; 409 `no_recording_to_review` without a recording.
 */
export async function markListened(
  deps: ListenedDeps,
  accountId: string,
  collectionId: string,
  userId: string,
  memberEmail: string,
): Promise<{ listened_at: string }> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId)) throw notFound('user', 'user_id');
  const row = await setListened(deps.db.kysely, collection.id, userId, deps.clock.now().toISOString(), memberEmail);
  if (row?.listened_at) return { listened_at: row.listened_at };
  if (!(await userIsInCollection(deps.db.kysely, collection.id, userId))) throw notFound('user', 'user_id');
  throw new AppError('no_recording_to_review', 'This person has no recording to listen to yet.', { param: 'user_id' });
}

/** People (id, name) whose recording awaits a decision and was played in the dashboard: what "approve played" approves. */
export async function listenedAwaitingReview(deps: ListenedDeps, accountId: string, collectionId: string) {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  return listListenedAwaiting(deps.db.kysely, collection.id);
}

/** How many recordings await a decision and were played: the count on the "approve played" button. */
export async function countListenedAwaitingReview(deps: ListenedDeps, accountId: string, collectionId: string): Promise<number> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  return countListenedAwaiting(deps.db.kysely, collection.id);
}
