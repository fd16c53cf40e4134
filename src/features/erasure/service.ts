/**
 * Erasing a collection for good: at once (`DELETE /v1/collections/{id}?erase=true`) or when an
 * archived collection's retention window closes (`ARCHIVE_RETENTION_DAYS`). One transaction
 * removes the people, recordings, play links, the events and webhook deliveries that carry
 * them, and stored idempotent responses that echo them; tombstones (token hashes) make the
 * play links' public URLs answer 410; a personal-data-free erasure record and a
 * `collection.erased` event report it. After the commit the audio files are deleted and every
 * process drops its cached links.
 */
import { type TransactionDeps, type TransactionScope, withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { sha256Hex } from '../../lib/secrets.js';
import { recordEvent } from '../events/service.js';
import { invalidateAllPlayLinks } from '../play-links/invalidation.js';
import { logCdnPurge, recordingBlobPrefix } from '../recordings/service.js';
import {
  archiveIfLive,
  countRecordingsOfCollection,
  deleteCollectionRow,
  deleteEventsOfCollection,
  deleteEventsOfPerson,
  deleteUsers,
  expiredArchivedCollections,
  insertErasure,
  insertTombstones,
  isTombstoned,
  listErasures,
  lockArchivedCollection,
  tokensOfCollection,
  tokensOfUser,
  usersOfCollection,
} from './repo.js';
import type { Erasure } from './schemas.js';

type ErasureDeps = Pick<Deps, 'db' | 'clock' | 'logger' | 'blobs' | 'playLinks' | 'notifications' | 'config'> & TransactionDeps;
export type Actor = { type: 'api_key' | 'member'; id: string } | { type: 'retention' };

const toErasure = (row: {
  id: string;
  kind: string;
  subject_id: string;
  actor_type: string;
  actor_id: string | null;
  counts: string;
  created_at: string;
}): Erasure => ({
  id: row.id,
  kind: row.kind as Erasure['kind'],
  subject_id: row.subject_id,
  actor: { type: row.actor_type as Erasure['actor']['type'], id: row.actor_id },
  counts: JSON.parse(row.counts) as Erasure['counts'],
  created_at: row.created_at,
});

/**
 * Erases one collection. `accountId` limits it to that account's collection (the API);
 * without it (the retention job) any archived collection. A live collection is archived first,
 * in the same transaction. Returns null when there was nothing to erase (another worker did).
 */
export async function eraseCollection(
  deps: ErasureDeps,
  collectionId: string,
  actor: Actor,
  accountId?: string,
): Promise<Erasure | null> {
  const at = isoNow(deps.clock);
  const userIds: string[] = [];
  const erasure = await withTransaction(deps, async (tx) => {
    const trx = tx.trx;
    if (accountId !== undefined) {
      // `?erase=true` on a live collection: archive and erase in one go.
      await archiveIfLive(trx, accountId, collectionId, at);
    }
    const collection = await lockArchivedCollection(trx, collectionId, accountId);
    if (!collection) return null;
    userIds.push(...(await usersOfCollection(trx, collectionId)).map((u) => u.id));
    const tokens = (await tokensOfCollection(trx, collectionId)).map((t) => t.token);
    const recordings = await countRecordingsOfCollection(trx, collectionId);
    await insertTombstones(
      trx,
      tokens.map((token) => sha256Hex(token)),
      at,
    );
    const removed = await deleteEventsOfCollection(trx, collection.account_id, collectionId);
    // Its people first, in slices; what is left of the collection then goes in one statement.
    await deleteUsers(trx, userIds);
    await deleteCollectionRow(trx, collectionId);
    const row = {
      id: `era_${newId().replace(/-/g, '')}`,
      account_id: collection.account_id,
      kind: 'collection' as const,
      subject_id: collectionId,
      actor_type: actor.type,
      actor_id: actor.type === 'retention' ? null : actor.id,
      counts: JSON.stringify({ users: userIds.length, recordings, play_links: tokens.length, ...removed }),
      created_at: at,
    };
    await insertErasure(trx, row);
    await recordEvent(tx, {
      accountId: collection.account_id,
      type: 'collection.erased',
      data: { collection_id: collectionId, erasure_id: row.id, erased_at: at, counts: JSON.parse(row.counts) as object },
      at: new Date(at),
    });
    tx.afterCommit(() => invalidateAllPlayLinks(deps));
    return toErasure(row);
  });
  if (erasure) await deleteAudioOf(deps, userIds);
  return erasure;
}

/**
 * Inside a person's deletion transaction, before its own events are recorded: tombstones for
 * their play-link tokens (so the URLs answer 410) and no event, delivery or stored answer that
 * names them. The `recording.deleted` and `user.deleted` events recorded afterwards are the
 * only traces left, and they go with the delivery logs (WEBHOOK_LOG_RETENTION_DAYS).
 */
export async function eraseTracesOfPerson(tx: TransactionScope, accountId: string, userId: string, at: string): Promise<void> {
  const tokens = (await tokensOfUser(tx.trx, userId)).map((t) => sha256Hex(t.token));
  await insertTombstones(tx.trx, tokens, at);
  await deleteEventsOfPerson(tx.trx, accountId, userId);
}

/** Every audio file of these people (the orphan sweep removes whatever a failure leaves). */
async function deleteAudioOf(deps: ErasureDeps, userIds: string[]): Promise<void> {
  for (const userId of userIds) {
    try {
      for (const key of await deps.blobs.list(recordingBlobPrefix(userId))) await deps.blobs.delete(key);
    } catch (err) {
      deps.logger.warn({ err }, 'could not delete audio files after an erasure; the orphan sweep will');
    }
  }
  logCdnPurge(
    deps,
    userIds.map((id) => recordingBlobPrefix(id)),
  );
}

/** The API's `DELETE /v1/collections/{id}?erase=true`. */
export async function eraseCollectionNow(
  deps: ErasureDeps,
  accountId: string,
  collectionId: string,
  actor: Actor,
): Promise<Erasure> {
  const erasure = isUuid(collectionId) ? await eraseCollection(deps, collectionId, actor, accountId) : null;
  if (!erasure) throw notFound('collection', 'collection_id');
  return erasure;
}

/** The retention job: erases archived collections whose window closed; returns how many. */
export async function eraseExpiredCollections(deps: ErasureDeps, retentionDays: number, limit = 20): Promise<number> {
  const cutoff = new Date(deps.clock.now().getTime() - retentionDays * 86_400_000).toISOString();
  let erased = 0;
  for (const { id } of await expiredArchivedCollections(deps.db.kysely, cutoff, limit)) {
    if (await eraseCollection(deps, id, { type: 'retention' })) erased++;
  }
  return erased;
}

/** True when the token belonged to an erased play link (its URLs answer 410, not 404). */
export const wasErased = (deps: Pick<Deps, 'db'>, token: string): Promise<boolean> =>
  isTombstoned(deps.db.kysely, sha256Hex(token));

export async function listAccountErasures(deps: Pick<Deps, 'db'>, accountId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 50;
  const rows = await listErasures(deps.db.kysely, accountId, decodeCursor(query.cursor), limit + 1);
  return toPage(rows, limit, toErasure);
}
