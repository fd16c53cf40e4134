import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database, RecordingStatus, UsersTable } from '../../db/schema.js';
import { olderThanCursor } from '../../db/keyset.js';
import type { PageCursor } from '../../lib/pagination.js';
import { isUniqueViolation, uniqueViolationDetail } from '../../db/errors.js';

export type UserRow = UsersTable;
export type UserWithRecording = UserRow & { recording_user_id: string | null };

export interface UserFilters {
  hasRecording?: boolean;
  recordingStatus?: RecordingStatus;
  emailNormalized?: string;
  externalId?: string;
}

const usersWithRecording = (db: Kysely<Database>) =>
  db
    .selectFrom('users')
    .leftJoin('recordings', 'recordings.user_id', 'users.id')
    .selectAll('users')
    .select('recordings.user_id as recording_user_id');

/**
 * Inserts users 200 per statement (under SQLite's bound-parameter limit: 15 columns per row).
 * Statements are separated by a turn of the event loop, as in every loop of statements here: on
 * SQLite each runs synchronously and awaiting it only queues a microtask, so without the turn an
 * import's fifty statements would hold every other request for their whole duration. On
 * PostgreSQL the turn costs nothing next to the round trip.
 */
export async function insertUsers(db: Kysely<Database>, rows: UserRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    if (i > 0) await nextTurn();
    await db
      .insertInto('users')
      .values(rows.slice(i, i + 200))
      .execute();
  }
}

export const findUser = (db: Kysely<Database>, collectionId: string, userId: string) =>
  usersWithRecording(db)
    .where('users.id', '=', userId)
    .where('users.collection_id', '=', collectionId)
    .executeTakeFirst() as Promise<UserWithRecording | undefined>;

export function listUsers(
  db: Kysely<Database>,
  collectionId: string,
  filters: UserFilters,
  cursor: PageCursor | null,
  limit: number,
) {
  let query = usersWithRecording(db).where('users.collection_id', '=', collectionId);
  if (filters.hasRecording !== undefined) {
    query = query.where('recordings.user_id', filters.hasRecording ? 'is not' : 'is', null);
  }
  if (filters.recordingStatus !== undefined) query = query.where('users.recording_status', '=', filters.recordingStatus);
  if (filters.emailNormalized !== undefined) query = query.where('users.email_normalized', '=', filters.emailNormalized);
  if (filters.externalId !== undefined) query = query.where('users.external_id', '=', filters.externalId);
  if (cursor) {
    query = query.where(olderThanCursor('users.created_at', 'users.id', cursor));
  }
  return query.orderBy('users.created_at', 'desc').orderBy('users.id', 'desc').limit(limit).execute() as Promise<
    UserWithRecording[]
  >;
}

/**
 * Touches the user's row and returns it: on PostgreSQL this takes the row lock, so concurrent
 * recordings and deletions of one user run one after another (SQLite serialises all writers).
 */
export const lockUser = (trx: Kysely<Database>, collectionId: string, userId: string, at: string) =>
  trx
    .updateTable('users')
    .set({ updated_at: at })
    .where('id', '=', userId)
    .where('collection_id', '=', collectionId)
    .returningAll()
    .executeTakeFirst();

export const updateUserRow = (trx: Kysely<Database>, userId: string, changes: Partial<UserRow>) =>
  trx.updateTable('users').set(changes).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();

export const deleteUserRow = (trx: Kysely<Database>, userId: string) =>
  trx.deleteFrom('users').where('id', '=', userId).execute();

/** Which of these e-mails / external ids are already used in the collection. */
export async function findTakenIdentifiers(
  db: Kysely<Database>,
  collectionId: string,
  emails: string[],
  externalIds: string[],
): Promise<{ emails: Set<string>; externalIds: Set<string> }> {
  const taken = { emails: new Set<string>(), externalIds: new Set<string>() };
  for (let i = 0; i < emails.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select('email_normalized')
      .where('collection_id', '=', collectionId)
      .where('email_normalized', 'in', emails.slice(i, i + 500))
      .execute();
    for (const row of rows) taken.emails.add(row.email_normalized);
  }
  for (let i = 0; i < externalIds.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select('external_id')
      .where('collection_id', '=', collectionId)
      .where('external_id', 'in', externalIds.slice(i, i + 500))
      .execute();
    for (const row of rows) if (row.external_id !== null) taken.externalIds.add(row.external_id);
  }
  return taken;
}

/** The collection's users having one of these e-mails or external ids (chunked under parameter limits). */
export async function findUsersByIdentifiers(
  db: Kysely<Database>,
  collectionId: string,
  emails: string[],
  externalIds: string[],
): Promise<UserRow[]> {
  const found = new Map<string, UserRow>();
  const lookups: ['email_normalized' | 'external_id', string[]][] = [
    ['email_normalized', emails],
    ['external_id', externalIds],
  ];
  for (const [column, values] of lookups) {
    for (let i = 0; i < values.length; i += 500) {
      await nextTurn();
      const rows = await db
        .selectFrom('users')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .where(column, 'in', values.slice(i, i + 500))
        .execute();
      for (const row of rows) found.set(row.id, row);
    }
  }
  return [...found.values()];
}

/** Rewrites existing users' editable columns, many per statement (an upsert on the primary key). */
export async function updateUserRows(trx: Kysely<Database>, rows: UserRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    if (i > 0) await nextTurn();
    await trx
      .insertInto('users')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          email: eb.ref('excluded.email'),
          email_normalized: eb.ref('excluded.email_normalized'),
          first_name: eb.ref('excluded.first_name'),
          last_name: eb.ref('excluded.last_name'),
          display_name: eb.ref('excluded.display_name'),
          preferred_name: eb.ref('excluded.preferred_name'),
          pronouns: eb.ref('excluded.pronouns'),
          external_id: eb.ref('excluded.external_id'),
          phonetic_spelling: eb.ref('excluded.phonetic_spelling'),
          name_language: eb.ref('excluded.name_language'),
          given_name_language: eb.ref('excluded.given_name_language'),
          family_name_language: eb.ref('excluded.family_name_language'),
          language: eb.ref('excluded.language'),
          custom_fields: eb.ref('excluded.custom_fields'),
          field_sources: eb.ref('excluded.field_sources'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Which unique rule an insert/update broke, from either database's error. */
export function uniqueViolation(error: unknown): 'email' | 'external_id' | null {
  if (!isUniqueViolation(error)) return null;
  const text = uniqueViolationDetail(error);
  if (/email/.test(text)) return 'email';
  if (/external_id/.test(text)) return 'external_id';
  return null;
}

/** The orders of the dashboard's people table; each is one index range (see `listPeoplePage`). */
export type PeopleOrder = 'newest' | 'oldest' | 'name';

export interface PeopleFilters {
  /** Lower-case text found anywhere in the display name (the name as shown) or the e-mail. */
  search?: string;
  /** Only people whose `recording_status` is one of these (`users_collection_status_page` for one status). */
  statuses?: RecordingStatus[];
  /**
   * Only people whose pronunciation guide is `approved`, `unapproved` or `missing` (the coverage
   * filter: together with the status `none` it tells the computer voice, a guide and nothing apart).
   */
  guide?: GuideFilter;
}

export type GuideFilter = 'approved' | 'unapproved' | 'missing';

/** The last row of the previous page, in the page's order: `created_at` or `display_name`, and the id. */
export interface PeopleKey {
  value: string;
  id: string;
}

const ORDERS: Record<PeopleOrder, { column: 'users.created_at' | 'users.display_name'; direction: 'asc' | 'desc' }> = {
  newest: { column: 'users.created_at', direction: 'desc' },
  oldest: { column: 'users.created_at', direction: 'asc' },
  name: { column: 'users.display_name', direction: 'asc' },
};

/** `%`, `_` and the escape character itself match literally inside a LIKE pattern. */
const likeContaining = (text: string) => `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;

/** The search's own test: the display name as shown, lower-cased, or the e-mail contains the text. */
const containsSearch = (table: 'users' | 'window', search: string) => {
  const pattern = likeContaining(search);
  return sql<SqlBool>`(lower(${sql.ref(`${table}.display_name`)}) like ${pattern} escape '!'
    or ${sql.ref(`${table}.email_normalized`)} like ${pattern} escape '!')`;
};

/** A search's candidates (`findSearchCandidates`), in each dialect's list parameter. */
interface Among {
  dialect: Dialect;
  ids: string[];
}

/**
 * The users table, or only its rows among the candidates, looked up by primary key. The
 * candidates are a subquery with a LIMIT named `users`: neither database folds it into the outer
 * query, so neither can choose to read the collection's whole range in order instead.
 */
function fromPeople(db: Kysely<Database>, among: Among | undefined) {
  if (among === undefined) return db.selectFrom('users');
  const list =
    among.dialect === 'sqlite'
      ? sql<SqlBool>`${sql.ref('users.id')} in (select value from json_each(${JSON.stringify(among.ids)}))`
      : sql<SqlBool>`${sql.ref('users.id')} = any(${among.ids})`;
  const candidates = db.selectFrom('users').selectAll().where(list).limit(among.ids.length);
  // The same columns under the same name: the outer query reads it as it reads the table.
  return db.selectFrom(candidates.as('users')) as unknown as ReturnType<typeof db.selectFrom<'users'>>;
}

/**
 * The guide filter as a lookup of each person's guide by its primary key, checked on the rows
 * the range yields: a subquery (never a join SQLite may turn inside out), so the order's index
 * still drives the page.
 */
function guideCondition(filter: GuideFilter) {
  const guide = (approved: 'is' | 'is not' | null) =>
    sql<SqlBool>`exists (select 1 from pronunciations where pronunciations.user_id = ${sql.ref('users.id')}${
      approved === null ? sql`` : sql` and pronunciations.approved_at ${sql.raw(approved)} null`
    })`;
  if (filter === 'approved') return guide('is not');
  if (filter === 'unapproved') return guide('is');
  return sql<SqlBool>`not ${guide(null)}`;
}

/** The people of `collectionId` in `order` after `after`, filtered by status and, if given, by the search. */
function peopleInOrder(
  db: Kysely<Database>,
  collectionId: string,
  filters: PeopleFilters,
  order: PeopleOrder,
  after: PeopleKey | null,
  among?: Among,
) {
  const { column, direction } = ORDERS[order];
  let query = fromPeople(db, among).selectAll().where('users.collection_id', '=', collectionId);
  const statuses = filters.statuses;
  if (statuses !== undefined) {
    query =
      statuses.length === 1
        ? query.where('users.recording_status', '=', statuses[0] as RecordingStatus)
        : query.where('users.recording_status', 'in', statuses);
  }
  if (filters.search !== undefined && filters.search !== '') query = query.where(containsSearch('users', filters.search));
  if (filters.guide !== undefined) query = query.where(guideCondition(filters.guide));
  if (after) {
    const comparison = sql.raw(direction === 'desc' ? '<' : '>');
    query = query.where(sql<SqlBool>`(${sql.ref(column)}, ${sql.ref('users.id')}) ${comparison} (${after.value}, ${after.id})`);
  }
  return query.orderBy(column, direction).orderBy('users.id', direction);
}

/**
 * One page of a collection's people in `order`, after `after`. The keyset condition is a row
 * value on an index of the order (`users_collection_page` or, filtered by one status,
 * `users_collection_status_page` for dates; `users_collection_name` for names), so page 500
 * costs what page 1 costs; a status filter the index does not lead with, and a search, are
 * checked on the rows the range yields (a search is only sent here for a window of rows:
 * `scanPeopleWindow`, or among its index's candidates: `listPeopleAmong`).
 */
export function listPeoplePage(
  db: Kysely<Database>,
  collectionId: string,
  filters: PeopleFilters,
  order: PeopleOrder,
  after: PeopleKey | null,
  limit: number,
): Promise<UserRow[]> {
  return peopleInOrder(db, collectionId, filters, order, after).limit(limit).execute();
}

/**
 * The ids of the people whose display name or e-mail may contain `search` (3 characters or more),
 * read from the search index: every person the search matches is among them. Null when there
 * are more than `cap`: a search that common is cheaper read in order (`scanPeopleWindow`).
 * The indexes span every collection (`listPeopleAmong` keeps the collection's): on PostgreSQL a
 * condition on the collection would tempt the planner to read the collection's index instead.
 */
export async function findSearchCandidates(
  db: Kysely<Database>,
  dialect: Dialect,
  search: string,
  cap: number,
): Promise<string[] | null> {
  const { rows } =
    dialect === 'sqlite'
      ? await sql<{ id: string }>`select k.user_id as id from users_search
          join users_search_keys k on k.rowid = users_search.rowid
          where users_search match ${`"${search.replace(/"/g, '""')}"`} limit ${cap + 1}`.execute(db)
      : await sql<{ id: string }>`select users.id from users where ${containsSearch('users', search)} limit ${cap + 1}`.execute(
          db,
        );
  return rows.length > cap ? null : rows.map((row) => row.id);
}

/** `listPeoplePage` among `ids` (a search's candidates): each is looked up by its key, and only the matches are ordered. */
export function listPeopleAmong(
  db: Kysely<Database>,
  dialect: Dialect,
  collectionId: string,
  ids: string[],
  filters: PeopleFilters,
  order: PeopleOrder,
  after: PeopleKey | null,
  limit: number,
): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return peopleInOrder(db, collectionId, filters, order, after, { dialect, ids }).limit(limit).execute();
}

/**
 * A search read in order over the next `window` people of the range (after `after`, with the
 * status filter): at most `limit` of them that match, and the key of the window's last person
 * when the range goes on beyond it (null when the window reached the end).
 */
export async function scanPeopleWindow(
  db: Kysely<Database>,
  collectionId: string,
  filters: PeopleFilters & { search: string },
  order: PeopleOrder,
  after: PeopleKey | null,
  limit: number,
  window: number,
): Promise<{ rows: UserRow[]; lastScanned: PeopleKey | null }> {
  const { column, direction } = ORDERS[order];
  const range = peopleInOrder(db, collectionId, { ...filters, search: '' }, order, after);
  const field = column === 'users.created_at' ? 'created_at' : 'display_name';
  const rows = await db
    .selectFrom(range.limit(window).as('window'))
    .selectAll()
    .where(containsSearch('window', filters.search))
    .orderBy(`window.${field}`, direction)
    .orderBy('window.id', direction)
    .limit(limit)
    .execute();
  const last = await range
    .clearSelect()
    .select([column, 'users.id'])
    .offset(window - 1)
    .limit(1)
    .executeTakeFirst();
  return {
    rows,
    lastScanned: last ? { value: field === 'created_at' ? last.created_at : last.display_name, id: last.id } : null,
  };
}
