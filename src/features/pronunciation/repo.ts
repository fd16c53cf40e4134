/** Every query of pronunciation guides (`pronunciations`, 0024). */
import { type Kysely, sql, type Transaction } from 'kysely';
import { olderThanCursor } from '../../db/keyset.js';
import type { PageCursor } from '../../lib/pagination.js';
import type { Database, PronunciationsTable } from '../../db/schema.js';

export type GuideRow = PronunciationsTable;
type Executor = Kysely<Database> | Transaction<Database>;

export const findGuide = (db: Executor, userId: string) =>
  db.selectFrom('pronunciations').selectAll().where('user_id', '=', userId).executeTakeFirst();

/** The guides of these people (any order; people without one are missing). */
export async function findGuides(db: Executor, userIds: readonly string[]): Promise<GuideRow[]> {
  if (userIds.length === 0) return [];
  const rows: GuideRow[] = [];
  for (let i = 0; i < userIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('pronunciations')
        .selectAll()
        .where('user_id', 'in', userIds.slice(i, i + 500))
        .execute()),
    );
  }
  return rows;
}

export const findGuideByAudioToken = (db: Executor, token: string) =>
  db
    .selectFrom('pronunciations')
    .select(['user_id', 'audio_key', 'audio_duration_ms', 'approved_at'])
    .where('audio_token', '=', token)
    .executeTakeFirst();

/** Writes the whole guide (insert or replace). */
export const saveGuide = (db: Executor, row: GuideRow) =>
  db
    .insertInto('pronunciations')
    .values(row)
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({
        ipa: row.ipa,
        respelling: row.respelling,
        not_like: row.not_like,
        language: row.language,
        language_suggested: row.language_suggested,
        source: row.source,
        method: row.method,
        generated_from: row.generated_from,
        approved_at: row.approved_at,
        audio_token: row.audio_token,
        audio_key: row.audio_key,
        audio_duration_ms: row.audio_duration_ms,
        updated_at: row.updated_at,
      }),
    )
    .execute();

/** The people, with what their guide is made from, to (re)generate guides for. */
export const findPeopleForGuides = (db: Executor, userIds: readonly string[]) =>
  db
    .selectFrom('users')
    .innerJoin('collections', 'collections.id', 'users.collection_id')
    .select([
      'users.id',
      'users.collection_id',
      'collections.account_id',
      'users.external_id',
      'users.first_name',
      'users.last_name',
      'users.display_name',
      'users.name_language',
      'users.given_name_language',
      'users.family_name_language',
      'users.recording_status',
    ])
    .where('users.id', 'in', userIds)
    .execute();

/** Up to `limit` people's ids after `afterId`, in id order (the sweep's pages, on the primary key). */
export const findUserIdsAfter = (db: Executor, afterId: string, limit: number) =>
  db.selectFrom('users').select('id').where('id', '>', afterId).orderBy('id').limit(limit).execute();

/**
 * One page of a collection's people, newest first from `after`, with what their coverage is
 * made of: the caller counts page by page (a count of 100,000 people in one statement holds
 * SQLite's thread for about 80 ms). Each page is a range of `users_collection_page`.
 */
/**
 * The coverage of a window of `limit` people of a collection (newest first, after `after`),
 * counted by the database: how many have each recording status with or without a guide, and
 * with or without an approved computer voice. Only the counts leave the database.
 */
export async function countCoverageWindow(db: Executor, collectionId: string, after: PageCursor | null, limit: number) {
  let window = db
    .selectFrom('users')
    .select(['users.id', 'users.recording_status'])
    .where('users.collection_id', '=', collectionId);
  if (after) window = window.where(olderThanCursor('users.created_at', 'users.id', after));
  const windowed = window.orderBy('users.created_at', 'desc').orderBy('users.id', 'desc').limit(limit).as('w');
  const rows = await db
    .selectFrom(windowed)
    .leftJoin('pronunciations', 'pronunciations.user_id', 'w.id')
    .select((eb) => [
      'w.recording_status',
      sql<number>`case when ${sql.ref('pronunciations.user_id')} is null then 0 else 1 end`.as('guided'),
      sql<number>`case when ${sql.ref('pronunciations.approved_at')} is null then 0 else 1 end`.as('approved'),
      eb.fn.countAll().as('n'),
    ])
    .groupBy(['w.recording_status', 'guided', 'approved'])
    .execute();
  return rows.map((row) => ({ ...row, guided: Number(row.guided), approved: Number(row.approved), n: Number(row.n) }));
}

/** The key of the last person of that window (the next window starts after it); undefined past the collection's end. */
export const coverageWindowEnd = (db: Executor, collectionId: string, after: PageCursor | null, limit: number) => {
  let query = db.selectFrom('users').select(['created_at', 'id']).where('collection_id', '=', collectionId);
  if (after) query = query.where(olderThanCursor('created_at', 'id', after));
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(limit - 1)
    .limit(1)
    .executeTakeFirst();
};
