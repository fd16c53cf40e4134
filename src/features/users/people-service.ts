/**
 * The people of a collection as the dashboard shows them: a searchable, filterable table in
 * pages of 100 (keyset cursors per order, fast however deep), and the whole collection in a
 * chosen order for the ceremony reader.
 */
import { setImmediate } from 'node:timers/promises';
import { AppError } from '../../errors.js';
import { unsafeTextReason } from '../../lib/text.js';
import type { Collection, CustomField } from '../collections/schemas.js';
import { countedStatuses, getCollection } from '../collections/service.js';
import type { RecordingStatus } from '../collections/schemas.js';
import type { Coverage } from '../pronunciation/schemas.js';
import type { GuideRow } from '../pronunciation/present.js';
import { countCoverageStates as countCoverage, guidesOf } from '../pronunciation/service.js';
import {
  findSearchCandidates,
  type GuideFilter,
  listPeopleAmong,
  listPeoplePage,
  type PeopleFilters,
  type PeopleKey,
  type PeopleOrder,
  scanPeopleWindow,
  type UserRow,
} from './repo.js';
import type { User } from './schemas.js';
import { toUser, type UsersDeps } from './service.js';

export type { PeopleOrder } from './repo.js';

export const PEOPLE_ORDERS: readonly PeopleOrder[] = ['newest', 'oldest', 'name'];
export const PEOPLE_PAGE_SIZE = 100;
export const MAX_PEOPLE_SEARCH = 100;
/**
 * The search index holds trigrams: a search of fewer characters cannot be looked up in it, and is
 * read in order, SEARCH_WINDOW people per page.
 */
export const MIN_INDEXED_SEARCH = 3;
/** A search with more candidates than this is common: reading in order finds a page of matches sooner. */
const SEARCH_CANDIDATES_CAP = 2000;
/** How many people one page of a search read in order looks at, at most (a few milliseconds). */
export const SEARCH_WINDOW = 5000;
/** The reader loads every recording into the page; beyond this a browser would hold too much audio. */
export const READER_MAX_PEOPLE = 5000;

/**
 * The people table's status filters. `recorded` is who counts in `recorded_count` (with review
 * on: approved only); `awaiting_review` (recorded, not yet reviewed) only means something with
 * review on.
 */
export const PEOPLE_STATUS_FILTERS = ['recorded', 'not_recorded', 'needs_rerecord', 'awaiting_review'] as const;
export type PeopleStatusFilter = (typeof PEOPLE_STATUS_FILTERS)[number];

function statusesOf(filter: PeopleStatusFilter, reviewRequired: boolean): RecordingStatus[] {
  switch (filter) {
    case 'recorded':
      return countedStatuses(reviewRequired);
    case 'not_recorded':
      return ['none'];
    case 'needs_rerecord':
      return ['needs_rerecord'];
    case 'awaiting_review':
      return ['recorded'];
  }
}

/** A person row as the dashboard's User: a status other than `none` means a recording exists. */
const userOf = (baseUrl: string, row: UserRow, guides: ReadonlyMap<string, GuideRow>): User =>
  toUser(baseUrl, row, row.recording_status !== 'none', guides.get(row.id) ?? null);

/** Which recording statuses and which guides a coverage state is made of (`coverageOf`, read backwards). */
const COVERAGE_FILTERS: Record<Coverage, { statuses: RecordingStatus[]; guide?: GuideFilter }> = {
  recording: { statuses: ['recorded', 'approved', 'needs_rerecord'] },
  computer_voice: { statuses: ['none'], guide: 'approved' },
  guide: { statuses: ['none'], guide: 'unapproved' },
  none: { statuses: ['none'], guide: 'missing' },
};

/** The table's filters as the repo's: a status and a coverage together keep the statuses both allow (maybe none). */
function filtersOf(query: PeopleQuery, reviewRequired: boolean, search: string | undefined): PeopleFilters {
  const byStatus = query.status === undefined ? undefined : statusesOf(query.status, reviewRequired);
  const byCoverage = query.coverage === undefined ? undefined : COVERAGE_FILTERS[query.coverage];
  const statuses = byCoverage ? byCoverage.statuses.filter((status) => !byStatus || byStatus.includes(status)) : byStatus;
  return {
    ...(search === undefined ? {} : { search }),
    ...(statuses === undefined ? {} : { statuses }),
    ...(byCoverage?.guide === undefined ? {} : { guide: byCoverage.guide }),
  };
}

export interface PeopleQuery {
  search?: string;
  status?: PeopleStatusFilter;
  /** Only people whose name will be said this way (`coverageOf`). */
  coverage?: Coverage;
  order?: PeopleOrder;
  cursor?: string;
}

export interface PeoplePage {
  collection: Collection;
  data: User[];
  next_cursor: string | null;
  /**
   * True when the search was read in order and stopped after SEARCH_WINDOW people without
   * filling the page: `next_cursor` goes on from the last person looked at.
   */
  partial: boolean;
}

const badCursor = () =>
  new AppError('invalid_cursor', 'The page link is invalid; start again from the first page.', { param: 'cursor' });

/** A cursor names its order, so a link of one order is never read as a position in another. */
const encodePeopleCursor = (order: PeopleOrder, key: PeopleKey) =>
  Buffer.from(JSON.stringify([order, key.value, key.id])).toString('base64url');

function decodePeopleCursor(raw: string, order: PeopleOrder): PeopleKey {
  if (!/^[A-Za-z0-9_-]{1,1200}$/.test(raw)) throw badCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(value) || value.length !== 3) throw badCursor();
  const [cursorOrder, key, id] = value as unknown[];
  if (cursorOrder !== order || typeof key !== 'string' || key.length > 400 || typeof id !== 'string' || id.length > 64) {
    throw badCursor();
  }
  return { value: key, id };
}

function checkSearch(search: string | undefined): string | undefined {
  const text = search?.trim();
  if (text === undefined || text === '') return undefined;
  if ([...text].length > MAX_PEOPLE_SEARCH || unsafeTextReason(text) !== null) {
    throw new AppError('parameter_invalid', `The search must be at most ${MAX_PEOPLE_SEARCH} characters of text.`, {
      param: 'search',
    });
  }
  return text.normalize('NFC').toLowerCase();
}

const keyOf = (order: PeopleOrder, row: UserRow): PeopleKey => ({
  value: order === 'name' ? row.display_name : row.created_at,
  id: row.id,
});

/**
 * One page (100) of the collection's people: search (case-insensitive, anywhere in the names
 * or the e-mail, at most 100 characters), a status filter, newest / oldest / by display name.
 * 404 for a collection that is not the account's live one; 400 for a bad search or cursor.
 */
export async function listPeople(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  query: PeopleQuery,
): Promise<PeoplePage> {
  const collection = await getCollection(deps, accountId, collectionId);
  const order = query.order ?? 'newest';
  const search = checkSearch(query.search);
  const after = query.cursor === undefined || query.cursor === '' ? null : decodePeopleCursor(query.cursor, order);
  const filters = filtersOf(query, collection.review_required, search);
  // A status no coverage allows (recorded, yet only a guide): nobody, without a query.
  const found =
    filters.statuses?.length === 0
      ? { rows: [], lastScanned: null }
      : await findPeople(deps, collection.id, filters, order, after);
  const page = found.rows.slice(0, PEOPLE_PAGE_SIZE);
  const guides = await guidesOf(
    deps,
    page.map((row) => row.id),
  );
  const last = page.at(-1);
  const full = found.rows.length > PEOPLE_PAGE_SIZE && last;
  const next = full ? keyOf(order, last) : found.lastScanned;
  return {
    collection,
    data: page.map((row) => userOf(deps.config.baseUrl, row, guides)),
    next_cursor: next ? encodePeopleCursor(order, next) : null,
    partial: !full && found.lastScanned !== null,
  };
}

/**
 * A page and one more: without a search, the order's index range; with one, the people among
 * the search index's candidates, or, for a search too short for the index or too common to be
 * worth it, a window of SEARCH_WINDOW people read in order (so no request reads the whole
 * collection, which on SQLite would hold every other request).
 */
async function findPeople(
  deps: UsersDeps,
  collectionId: string,
  filters: PeopleFilters,
  order: PeopleOrder,
  after: PeopleKey | null,
): Promise<{ rows: UserRow[]; lastScanned: PeopleKey | null }> {
  const { kysely, dialect } = deps.db;
  const limit = PEOPLE_PAGE_SIZE + 1;
  const search = filters.search;
  if (search === undefined)
    return { rows: await listPeoplePage(kysely, collectionId, filters, order, after, limit), lastScanned: null };
  const candidates =
    [...search].length >= MIN_INDEXED_SEARCH ? await findSearchCandidates(kysely, dialect, search, SEARCH_CANDIDATES_CAP) : null;
  if (candidates) {
    return {
      rows: await listPeopleAmong(kysely, dialect, collectionId, candidates, filters, order, after, limit),
      lastScanned: null,
    };
  }
  const scanned = await scanPeopleWindow(kysely, collectionId, { ...filters, search }, order, after, limit, SEARCH_WINDOW);
  return { rows: scanned.rows, lastScanned: scanned.rows.length > PEOPLE_PAGE_SIZE ? null : scanned.lastScanned };
}

/** How the reader orders a collection: as imported, alphabetically, by last name, or by a custom field's value. */
export type ReaderOrder = { by: 'import' } | { by: 'display_name' } | { by: 'last_name' } | { by: 'custom_field'; key: string };

export interface ReaderList {
  collection: Collection;
  /** Null when the collection has more than READER_MAX_PEOPLE people (nothing else is loaded then). */
  people: User[] | null;
  /** Each person's place (from 0) in each of the `ranked` orders, by id: the reader re-orders itself by these offline. */
  ranks: Map<string, number[]>;
}

const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

type FieldValue = string | number | boolean | undefined;

/** Numbers before text; people without a value last, in import order among themselves. */
function compareValues(a: FieldValue, b: FieldValue): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return collator.compare(String(a), String(b));
}

/** What the reader's order reads of a person: a whole person, or only these columns of a collection's every person. */
export type ReaderSortable = Pick<User, 'display_name' | 'first_name' | 'last_name' | 'custom_fields'>;

/** `people` (in import order) in the reader's `order`; the name cards page through the same order. */
export function sortForReader<T extends ReaderSortable>(people: T[], order: ReaderOrder): T[] {
  if (order.by === 'import') return people;
  // Array.prototype.sort is stable: ties keep import order.
  if (order.by === 'display_name') return [...people].sort((a, b) => collator.compare(a.display_name, b.display_name));
  if (order.by === 'last_name') {
    // One-name people sort by the name they have.
    const surname = (p: T) => (p.last_name === '' ? p.display_name : p.last_name);
    return [...people].sort((a, b) => collator.compare(surname(a), surname(b)) || collator.compare(a.first_name, b.first_name));
  }
  return [...people].sort((a, b) => compareValues(a.custom_fields[order.key], b.custom_fields[order.key]));
}

/**
 * Each person's place in each of `orders`, by id, sorted as `sortForReader` sorts (`people` in
 * import order). A sort of 5,000 names by the collation takes 10-15 ms: other requests get a
 * turn between orders.
 */
export async function rankForReader<T extends ReaderSortable & { id: string }>(
  people: T[],
  orders: ReaderOrder[],
): Promise<Map<string, number[]>> {
  const ranks = new Map<string, number[]>(people.map((person) => [person.id, []]));
  for (const [column, order] of orders.entries()) {
    if (column > 0) await setImmediate();
    sortForReader(people, order).forEach((person, rank) => ranks.get(person.id)?.push(rank));
  }
  return ranks;
}

/** `people` placed by their rank in one of the ranked orders (`rankForReader`): the same order, without sorting again. */
function inRankOrder<T extends { id: string }>(people: T[], ranks: Map<string, number[]>, column: number): T[] {
  const placed: T[] = Array.from({ length: people.length });
  for (const person of people) placed[ranks.get(person.id)?.[column] ?? -1] = person;
  return placed;
}

/**
 * Every person of the collection in reading order, for the ceremony reader, with their place in
 * each of the `ranked` orders (the orders the reader offers). A custom-field
 * order must name one of the collection's fields (else 400). Read in pages of 1,000 in import
 * order, then ordered here; at most READER_MAX_PEOPLE people.
 */
export async function listPeopleForReader(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  order: ReaderOrder,
  ranked: ReaderOrder[] = [],
): Promise<ReaderList> {
  const collection = await getCollection(deps, accountId, collectionId);
  if (order.by === 'custom_field' && !collection.custom_fields.some((f: CustomField) => f.key === order.key)) {
    throw new AppError('parameter_invalid', 'The order names no custom field of this collection.', { param: 'order' });
  }
  if (collection.member_count > READER_MAX_PEOPLE) return { collection, people: null, ranks: new Map() };
  const people: User[] = [];
  let after: PeopleKey | null = null;
  for (;;) {
    const rows = await listPeoplePage(deps.db.kysely, collection.id, {}, 'oldest', after, 1000);
    // The reader shows each guide and plays the best source: the guides of the page, by key.
    const guides = await guidesOf(
      deps,
      rows.map((row) => row.id),
    );
    for (const row of rows) people.push(userOf(deps.config.baseUrl, row, guides));
    const last = rows.at(-1);
    if (rows.length < 1000 || !last) break;
    after = keyOf('oldest', last);
    // The counter may lag a concurrent import by a moment; the limit holds regardless.
    if (people.length > READER_MAX_PEOPLE) return { collection, people: null, ranks: new Map() };
  }
  const ranks = await rankForReader(people, ranked);
  const column = ranked.findIndex((option) => JSON.stringify(option) === JSON.stringify(order));
  return { collection, people: column < 0 ? sortForReader(people, order) : inRankOrder(people, ranks, column), ranks };
}

/** How many of the collection's people have each coverage state (`COVERAGE_STATES`), for its progress. */
export async function countCoverageStates(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
): Promise<Record<Coverage, number>> {
  const collection = await getCollection(deps, accountId, collectionId);
  return countCoverage(deps, collection.id);
}
