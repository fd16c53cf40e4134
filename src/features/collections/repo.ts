import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { CollectionsTable, Database, RecordingStatus } from '../../db/schema.js';
import { olderThanCursor } from '../../db/keyset.js';
import type { PageCursor } from '../../lib/pagination.js';

export type CollectionRow = Omit<
  CollectionsTable,
  'member_count' | 'recorded_count' | 'review_required' | 'language' | 'self_edit' | 'reminder_days' | 'lineup_order'
> & {
  member_count: number;
  recorded_count: number;
  review_required: number;
  language: string;
  self_edit: number;
  reminder_days: string;
};

export const insertCollection = (db: Kysely<Database>, row: CollectionRow) => db.insertInto('collections').values(row).execute();

/** A live (not archived) collection of this account. */
export const findLiveCollection = (db: Kysely<Database>, accountId: string, id: string): Promise<CollectionRow | undefined> =>
  db
    .selectFrom('collections')
    .selectAll()
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .executeTakeFirst();

/** Live collections newest first, starting after `cursor`; `limit` rows at most. */
export function listLiveCollections(db: Kysely<Database>, accountId: string, cursor: PageCursor | null, limit: number) {
  let query = db.selectFrom('collections').selectAll().where('account_id', '=', accountId).where('archived_at', 'is', null);
  if (cursor) {
    query = query.where(olderThanCursor('created_at', 'id', cursor));
  }
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute() as Promise<CollectionRow[]>;
}

export const updateLiveCollection = (
  db: Kysely<Database>,
  accountId: string,
  id: string,
  changes: Partial<Omit<CollectionRow, 'id' | 'account_id' | 'created_at' | 'archived_at' | 'member_count' | 'recorded_count'>>,
) =>
  db
    .updateTable('collections')
    .set(changes)
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .returningAll()
    .executeTakeFirst() as Promise<CollectionRow | undefined>;

export const archiveLiveCollection = async (db: Kysely<Database>, accountId: string, id: string, at: string) => {
  const result = await db
    .updateTable('collections')
    .set({ archived_at: at, updated_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
};

/** Adds to the collection's member counter in the caller's transaction (an atomic increment). */
export async function addToMemberCount(trx: Kysely<Database>, collectionId: string, delta: number): Promise<void> {
  await trx
    .updateTable('collections')
    .set((eb) => ({ member_count: eb('member_count', '+', delta) }))
    .where('id', '=', collectionId)
    .execute();
}

export const countLiveCollections = async (db: Kysely<Database>, accountId: string): Promise<number> => {
  const row = await db
    .selectFrom('collections')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('account_id', '=', accountId)
    .where('archived_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
};

/**
 * Adds to `recorded_count` the delta that applies under the collection's review setting as it
 * stands when this statement takes the row's lock, so a change racing a switch of the setting
 * is counted under the setting it commits after.
 */
export async function addToRecordedCount(
  trx: Kysely<Database>,
  collectionId: string,
  delta: { withReview: number; withoutReview: number },
): Promise<void> {
  await trx
    .updateTable('collections')
    .set({
      // Typed casts: PostgreSQL cannot infer the type of a bare parameter inside CASE.
      recorded_count: sql<number>`recorded_count + case when review_required = 1 then cast(${delta.withReview} as integer) else cast(${delta.withoutReview} as integer) end`,
    })
    .where('id', '=', collectionId)
    .execute();
}

/** Sets `recorded_count` to the number of the collection's people whose status is one of `counted`. */
export const recountRecorded = (trx: Kysely<Database>, collectionId: string, counted: RecordingStatus[]) =>
  trx
    .updateTable('collections')
    .set((eb) => ({
      recorded_count: eb
        .selectFrom('users')
        .select((inner) => inner.fn.countAll<number>().as('n'))
        .where('users.collection_id', '=', collectionId)
        .where('users.recording_status', 'in', counted),
    }))
    .where('id', '=', collectionId)
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<CollectionRow>;

/**
 * Deletes the values of custom fields `keys` from every user of the collection that has one
 * (the definitions were removed). JSON is text in both databases; each edits it with its own
 * JSON functions, so no row travels to the service.
 */
export async function removeCustomFieldValues(
  trx: Kysely<Database>,
  dialect: Dialect,
  collectionId: string,
  keys: string[],
  at: string,
): Promise<number> {
  if (keys.length === 0) return 0;
  const query =
    dialect === 'postgres'
      ? trx
          .updateTable('users')
          .set({ custom_fields: sql<string>`(custom_fields::jsonb - ${keys}::text[])::text`, updated_at: at })
          .where('collection_id', '=', collectionId)
          .where(sql<boolean>`custom_fields::jsonb ?| ${keys}::text[]`)
      : trx
          .updateTable('users')
          .set({
            custom_fields: sql<string>`json_remove(custom_fields, ${sql.join(keys.map((k) => `$.${k}`))})`,
            updated_at: at,
          })
          .where('collection_id', '=', collectionId)
          .where(
            sql<boolean>`(${sql.join(
              keys.map((k) => sql`json_type(custom_fields, ${`$.${k}`}) is not null`),
              sql` or `,
            )})`,
          );
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Brings an archived (not yet erased) collection back; undefined when there is none to restore. */
export const restoreArchivedCollection = (db: Kysely<Database>, accountId: string, id: string, at: string) =>
  db
    .updateTable('collections')
    .set({ archived_at: null, updated_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('archived_at', 'is not', null)
    .returningAll()
    .executeTakeFirst() as Promise<CollectionRow | undefined>;
