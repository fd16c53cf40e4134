import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database } from '../../db/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

/** Everything a public URL needs about one token, in one indexed query. */
export interface ResolvedLinkRow {
  token: string;
  play_count: number;
  user_id: string;
  collection_id: string;
  display_name: string;
  preferred_name: string | null;
  pronouns: string | null;
  phonetic_spelling: string | null;
  blob_key: string;
  mime_type: string;
  byte_size: number;
  duration_ms: number;
  recorded_at: string;
  allow_indexing: number | null;
  collection_name: string;
  collection_language: string;
  organisation_name: string | null;
  logo_key: string | null;
  brand_color: string | null;
  /** The person's pronunciation guide (`pronunciations`), all null when they have none. */
  guide_ipa: string | null;
  guide_respelling: string | null;
  guide_not_like: string | null;
  guide_language: string | null;
  guide_approved_at: string | null;
}

/**
 * Of `tokens`, those that are active, whose user has a recording and whose collection is live
 * (the others are simply absent). One statement for any number of tokens: the tokens go in as a
 * single parameter (JSON array on SQLite, text[] on PostgreSQL), and the statement is built once
 * per database, because this runs on every cache miss of the public URLs.
 */
export async function findResolvableLinks(db: Kysely<Database>, dialect: Dialect, tokens: string[]): Promise<ResolvedLinkRow[]> {
  let compiled = resolvableLinkQueries.get(db);
  if (!compiled) {
    const tokenList =
      dialect === 'postgres'
        ? sql<boolean>`pl.token = any(${TOKENS_PLACEHOLDER}::text[])`
        : sql<boolean>`pl.token in (select value from json_each(${TOKENS_PLACEHOLDER}))`;
    compiled = resolvableLinkQuery(db, tokenList).compile();
    resolvableLinkQueries.set(db, compiled);
  }
  const list = dialect === 'postgres' ? tokens : JSON.stringify(tokens);
  const parameters = compiled.parameters.map((value) => (value === TOKENS_PLACEHOLDER ? list : value));
  const result = await db.executeQuery<ResolvedLinkRow>(CompiledQuery.raw(compiled.sql, parameters));
  return result.rows;
}

const TOKENS_PLACEHOLDER = '\u0000tokens';
const resolvableLinkQueries = new WeakMap<Kysely<Database>, CompiledQuery>();

const resolvableLinkQuery = (db: Executor, tokenList: ReturnType<typeof sql<boolean>>) =>
  db
    .selectFrom('play_links as pl')
    .innerJoin('users as u', 'u.id', 'pl.user_id')
    .innerJoin('recordings as r', 'r.user_id', 'u.id')
    .innerJoin('collections as c', 'c.id', 'u.collection_id')
    .leftJoin('play_link_settings as s', 's.collection_id', 'c.id')
    .leftJoin('pronunciations as g', 'g.user_id', 'u.id')
    .select([
      'pl.token',
      'pl.play_count',
      'u.id as user_id',
      'u.collection_id',
      'u.display_name',
      'u.preferred_name',
      'u.pronouns',
      'u.phonetic_spelling',
      'r.blob_key',
      'r.mime_type',
      'r.byte_size',
      'r.duration_ms',
      'r.recorded_at',
      's.allow_indexing',
      'c.name as collection_name',
      'c.language as collection_language',
      'c.organisation_name',
      'c.logo_key',
      'c.brand_color',
      'g.ipa as guide_ipa',
      'g.respelling as guide_respelling',
      'g.not_like as guide_not_like',
      'g.language as guide_language',
      'g.approved_at as guide_approved_at',
    ])
    .where(tokenList)
    .where('pl.status', '=', 'active')
    .where('c.archived_at', 'is', null);

export interface UserLinkRow {
  user_id: string;
  collection_id: string;
  display_name: string;
  token: string | null;
  duration_ms: number | null;
  recorded_at: string | null;
}

/**
 * Users among `ids` (of any collection: callers check `collection_id`), with their recording and
 * active link when they have them. Looked up by primary key only: a `collection_id = ?` condition
 * in SQL lets SQLite's planner walk the whole collection's index instead of the 100 keys. The ids
 * go in as ONE parameter (a JSON array on SQLite, an array on PostgreSQL), so the statement text
 * is the same for every batch size: cheap to build and to prepare.
 */
export async function findUsersWithLinks(db: Executor, ids: string[], dialect: Dialect = 'sqlite'): Promise<UserLinkRow[]> {
  const idList =
    dialect === 'postgres'
      ? sql<boolean>`u.id = any(${ids}::text[])`
      : sql<boolean>`u.id in (select value from json_each(${JSON.stringify(ids)}))`;
  return db
    .selectFrom('users as u')
    .leftJoin('recordings as r', 'r.user_id', 'u.id')
    .leftJoin('play_links as pl', (join) => join.onRef('pl.user_id', '=', 'u.id').on('pl.status', '=', 'active'))
    .select(['u.id as user_id', 'u.collection_id', 'u.display_name', 'pl.token', 'r.duration_ms', 'r.recorded_at'])
    .where(idList)
    .execute();
}

export const findActiveLinkOfUser = (db: Executor, userId: string) =>
  db
    .selectFrom('play_links')
    .select(['token', 'play_count'])
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .executeTakeFirst();

export const insertActiveLink = (
  db: Executor,
  row: { token: string; user_id: string; created_at: string; play_count?: number },
) =>
  db
    .insertInto('play_links')
    .values({ ...row, status: 'active', retired_at: null })
    .execute();

/** Retires the user's active link; returns its token (undefined when there was none). */
export async function retireActiveLink(db: Executor, userId: string, at: string) {
  const row = await db
    .updateTable('play_links')
    .set({ status: 'retired', retired_at: at })
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .returning(['token', 'play_count'])
    .executeTakeFirst();
  return row;
}

/**
 * Adds `plays` to the count of every token in `tokens` (one statement, the tokens as one array
 * parameter). PostgreSQL's index scan takes the array's tokens in sorted order, so two processes
 * flushing overlapping links lock their rows in the same order and never deadlock.
 */
export const addPlayCounts = (db: Executor, dialect: Dialect, tokens: string[], plays: number) =>
  db
    .updateTable('play_links')
    .set((eb) => ({ play_count: eb('play_count', '+', plays) }))
    .where(
      dialect === 'postgres'
        ? sql<boolean>`token = any(${tokens}::text[])`
        : sql<boolean>`token in (select value from json_each(${JSON.stringify(tokens)}))`,
    )
    .execute();

/** SQLite: the largest row id of `play_links` (0 when empty), to size the flush's row-id ranges. */
export async function findMaxPlayLinkRowId(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('play_links')
    .select(sql<number | null>`max(rowid)`.as('row_id'))
    .executeTakeFirst();
  return Number(row?.row_id ?? 0);
}

/** SQLite: where the rows of `tokens` are (their row ids); tokens without a row are absent. */
export const findPlayLinkRowIds = (db: Executor, tokens: string[]) =>
  db
    .selectFrom('play_links')
    .select([sql<number>`rowid`.as('row_id'), 'token'])
    .where(sql<boolean>`token in (select value from json_each(${JSON.stringify(tokens)}))`)
    .execute();

/**
 * SQLite: adds each entry's plays to its row, found by row id (the entries in row-id order touch
 * neighbouring pages, so one statement writes each page once) and checked by token, so a row id
 * reused by a link created since the row ids were read is never counted.
 */
export const addPlayCountsByRowId = (db: Executor, entries: { rowId: number; token: string; plays: number }[]) =>
  db
    .updateTable('play_links')
    .from(sql`json_each(${JSON.stringify(entries.map((e) => [e.rowId, e.token, e.plays]))})`.as('j'))
    .set({ play_count: sql`play_count + (j.value ->> 2)` })
    .where(sql<boolean>`play_links.rowid = (j.value ->> 0) and play_links.token = (j.value ->> 1)`)
    .execute();

export const findSettings = (db: Executor, collectionId: string) =>
  db.selectFrom('play_link_settings').selectAll().where('collection_id', '=', collectionId).executeTakeFirst();

export const upsertSettings = (db: Executor, row: { collection_id: string; allow_indexing: number; updated_at: string }) =>
  db
    .insertInto('play_link_settings')
    .values(row)
    .onConflict((oc) =>
      oc.column('collection_id').doUpdateSet({ allow_indexing: row.allow_indexing, updated_at: row.updated_at }),
    )
    .execute();
