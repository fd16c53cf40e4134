import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, sql } from 'kysely';
import type { Database, ErasuresTable } from '../../db/schema.js';
import { olderThanCursor } from '../../db/keyset.js';
import type { PageCursor } from '../../lib/pagination.js';

type Db = Kysely<Database>;

/**
 * Takes the row lock of an archived collection (so two workers never erase it twice) and
 * returns its account, or undefined when it is live, gone or another account's.
 */
export const lockArchivedCollection = (db: Db, id: string, accountId?: string) => {
  let query = db
    .updateTable('collections')
    .set({ updated_at: sql`updated_at` })
    .where('id', '=', id)
    .where('archived_at', 'is not', null);
  if (accountId !== undefined) query = query.where('account_id', '=', accountId);
  return query.returning(['id', 'account_id']).executeTakeFirst();
};

export const archiveIfLive = (db: Db, accountId: string, id: string, at: string) =>
  db
    .updateTable('collections')
    .set({ archived_at: at, updated_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .execute();

export const usersOfCollection = (db: Db, collectionId: string) =>
  db.selectFrom('users').select('id').where('collection_id', '=', collectionId).execute();

export const countRecordingsOfCollection = async (db: Db, collectionId: string): Promise<number> => {
  const row = await db
    .selectFrom('recordings')
    .innerJoin('users', 'users.id', 'recordings.user_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('users.collection_id', '=', collectionId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
};

export const tokensOfCollection = (db: Db, collectionId: string) =>
  db
    .selectFrom('play_links')
    .innerJoin('users', 'users.id', 'play_links.user_id')
    .select('play_links.token')
    .where('users.collection_id', '=', collectionId)
    .execute();

export async function insertTombstones(db: Db, hashes: string[], at: string): Promise<void> {
  for (let i = 0; i < hashes.length; i += 500) {
    if (i > 0) await nextTurn();
    const rows = hashes.slice(i, i + 500).map((token_hash) => ({ token_hash, erased_at: at }));
    await db
      .insertInto('erased_play_links')
      .values(rows)
      .onConflict((oc) => oc.column('token_hash').doNothing())
      .execute();
  }
}

export const isTombstoned = async (db: Db, hash: string): Promise<boolean> =>
  (await db.selectFrom('erased_play_links').select('token_hash').where('token_hash', '=', hash).executeTakeFirst()) !== undefined;

/**
 * Events and their deliveries (bodies and receivers' answers) that carry the collection's
 * people. Every event about a person names the collection id (a UUID), so a text match on it
 * finds exactly those.
 */
export async function deleteEventsOfCollection(db: Db, accountId: string, collectionId: string) {
  return deleteEventsNaming(db, accountId, collectionId);
}

async function deleteEventsNaming(db: Db, accountId: string, id: string) {
  const pattern = `%${id}%`;
  const deliveries = await db
    .deleteFrom('webhook_deliveries')
    .where('payload', 'like', pattern)
    .where('webhook_id', 'in', (eb) => eb.selectFrom('webhooks').select('id').where('account_id', '=', accountId))
    .executeTakeFirst();
  const events = await db
    .deleteFrom('events')
    .where('account_id', '=', accountId)
    .where('data', 'like', pattern)
    .executeTakeFirst();
  const replays = await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('response_body', 'like', pattern)
    .executeTakeFirst();
  return {
    deliveries: Number(deliveries.numDeletedRows),
    events: Number(events.numDeletedRows),
    stored_responses: Number(replays.numDeletedRows),
  };
}

export const tokensOfUser = (db: Db, userId: string) =>
  db.selectFrom('play_links').select('token').where('user_id', '=', userId).execute();

/** Events, deliveries and stored answers that name one person (by their id, a UUID). */
export const deleteEventsOfPerson = (db: Db, accountId: string, userId: string) =>
  deleteEventsOfCollection(db, accountId, userId);

/**
 * Deletes these people, 25 per statement with a turn of the event loop between statements.
 * Each person's row takes its recordings, play links and messages with it (foreign keys) and
 * its trigrams out of the search index (a trigger): about a quarter of a millisecond each on
 * SQLite, where a statement runs synchronously, so one statement for a collection of 10,000
 * held every other request for seconds.
 */
export async function deleteUsers(db: Db, userIds: string[]): Promise<void> {
  for (let i = 0; i < userIds.length; i += 25) {
    if (i > 0) await nextTurn();
    await db
      .deleteFrom('users')
      .where('id', 'in', userIds.slice(i, i + 25))
      .execute();
  }
}

/** Deletes the collection; users, recordings, play links and settings go with it (foreign keys). */
export const deleteCollectionRow = (db: Db, id: string) => db.deleteFrom('collections').where('id', '=', id).execute();

export const insertErasure = (db: Db, row: ErasuresTable) => db.insertInto('erasures').values(row).execute();

export function listErasures(db: Db, accountId: string, cursor: PageCursor | null, limit: number) {
  let query = db.selectFrom('erasures').selectAll().where('account_id', '=', accountId);
  if (cursor) query = query.where(olderThanCursor('created_at', 'id', cursor));
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Archived collections whose retention window closed before `cutoff`, oldest first. */
export const expiredArchivedCollections = (db: Db, cutoff: string, limit: number) =>
  db
    .selectFrom('collections')
    .select('id')
    .where('archived_at', 'is not', null)
    .where('archived_at', '<', cutoff)
    .orderBy('archived_at')
    .limit(limit)
    .execute();
