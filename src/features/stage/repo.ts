import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The stored line-up order of a collection (the caller has checked that the collection is the account's). */
export const findLineupOrder = async (db: Kysely<Database>, collectionId: string): Promise<string | undefined> =>
  (await db.selectFrom('collections').select('lineup_order').where('id', '=', collectionId).executeTakeFirst())?.lineup_order;

export const updateLineupOrder = (db: Kysely<Database>, collectionId: string, order: string, at: string) =>
  db.updateTable('collections').set({ lineup_order: order, updated_at: at }).where('id', '=', collectionId).execute();

/** The people of the collection who have no card code yet. */
export const findPeopleWithoutCode = (db: Kysely<Database>, collectionId: string): Promise<string[]> =>
  db
    .selectFrom('users')
    .leftJoin('stage_codes', 'stage_codes.user_id', 'users.id')
    .select('users.id')
    .where('users.collection_id', '=', collectionId)
    .where('stage_codes.user_id', 'is', null)
    .execute()
    .then((rows) => rows.map((row) => row.id));

/**
 * Stores new codes; a person who got one meanwhile (another card page made it first) keeps theirs.
 * A code already taken in the collection is a unique violation: the caller draws again.
 */
export const insertStageCodes = (
  db: Kysely<Database>,
  rows: { user_id: string; collection_id: string; code: string; created_at: string }[],
) =>
  db
    .insertInto('stage_codes')
    .values(rows)
    .onConflict((c) => c.column('user_id').doNothing())
    .execute();

/** The person a card code names in this collection. */
export const findPersonByCode = (db: Kysely<Database>, collectionId: string, code: string) =>
  db
    .selectFrom('stage_codes')
    .innerJoin('users', 'users.id', 'stage_codes.user_id')
    .select(['users.id', 'users.display_name'])
    .where('stage_codes.collection_id', '=', collectionId)
    .where('stage_codes.code', '=', code)
    .executeTakeFirst();

/**
 * What the line-up order reads of every person of a collection, in import order (the reader's:
 * `created_at`, then id), at most `limit` of them: a page of name cards sorts these few columns
 * and then loads only its own people (`findPeopleWithCodes`).
 */
export const listLineupKeys = (db: Kysely<Database>, collectionId: string, limit: number) =>
  db
    .selectFrom('users')
    .select(['id', 'display_name', 'first_name', 'last_name', 'custom_fields'])
    .where('collection_id', '=', collectionId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();

/** These people of the collection (a page of cards: at most a few hundred ids), each with their card code if they have one. */
export const findPeopleWithCodes = (db: Kysely<Database>, collectionId: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('users')
        .leftJoin('stage_codes', 'stage_codes.user_id', 'users.id')
        .selectAll('users')
        .select('stage_codes.code')
        .where('users.collection_id', '=', collectionId)
        .where('users.id', 'in', ids)
        .execute();
