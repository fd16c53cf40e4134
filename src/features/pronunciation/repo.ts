/** Every query of pronunciation guides (`pronunciations`, 0024). */
import { type Kysely, sql, type Transaction } from 'kysely';
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
 * How many of the collection's people have each kind of pronunciation: a recording (any status
 * but `none`), an approved guide, a guide, or nothing. One pass over the collection's people,
 * each guide looked up by its key.
 */
export async function countCoverage(
  db: Executor,
  collectionId: string,
): Promise<{ recording: number; approved: number; unapproved: number; missing: number }> {
  const row = await db
    .selectFrom('users')
    .leftJoin('pronunciations', 'pronunciations.user_id', 'users.id')
    .select([
      sql<number>`count(case when users.recording_status <> 'none' then 1 end)`.as('recording'),
      sql<number>`count(case when users.recording_status = 'none' and pronunciations.approved_at is not null then 1 end)`.as(
        'approved',
      ),
      sql<number>`count(case when users.recording_status = 'none' and pronunciations.user_id is not null and pronunciations.approved_at is null then 1 end)`.as(
        'unapproved',
      ),
      sql<number>`count(case when users.recording_status = 'none' and pronunciations.user_id is null then 1 end)`.as('missing'),
    ])
    .where('users.collection_id', '=', collectionId)
    .executeTakeFirstOrThrow();
  return {
    recording: Number(row.recording),
    approved: Number(row.approved),
    unapproved: Number(row.unapproved),
    missing: Number(row.missing),
  };
}
