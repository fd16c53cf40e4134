/**
 * The people table's search at size: it finds the same people as a substring test of the name
 * and e-mail (case-insensitive, `%` and `_` literal), through the search index when the search
 * has 3 characters or more; a shorter or very common search is read 5,000 people per page, and
 * "Keep searching" goes on where the page stopped. Edits and deletions keep the index true, and a
 * deleted person's name leaves the index (erasure).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSearchCandidates } from '../src/features/users/repo.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, signIn } from './helpers/dashboard.js';
import { usingPostgres } from './helpers/database.js';
import { planOf } from './helpers/query-plan.js';
import { seedPeople } from './helpers/seed-people.js';

const OWNER = 'search-owner@example.com';
const PEOPLE = 6000;

let t: TestApp;
let owner: Browserish;
let key: string;
let collectionId: string;
let ids: string[];

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER);
  ({ key } = await t.newAccount(OWNER));
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Everyone' } });
  collectionId = res.json().id;
  ids = await seedPeople(t.deps, collectionId, PEOPLE, {
    // The oldest person: the last of 6,000 newest first, beyond the first 5,000 a window reads.
    0: { name: 'Zoë Wu', email: 'zw@example.org' },
    10: { name: 'Ana 50%_off', email: 'ana@example.org' },
    5990: { name: 'Marguerite Qxjväll', email: 'mq@example.org' },
  });
  if (usingPostgres()) await sql`analyze users`.execute(t.deps.db.kysely);
}, 60_000);
afterAll(() => t.close());

const peoplePage = (query: string) => get(t, owner, `/dashboard/collections/${collectionId}${query}`);
const rowIds = (page: string) => [...page.matchAll(/<tr data-person-id="([0-9a-f-]{36})">/g)].map((m) => m[1]);
const nextLink = (page: string) => /rel="next" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');

describe('people search at size', () => {
  it('finds a person by 3 or more characters of the name or e-mail, in any case, % and _ literal', async () => {
    for (const search of ['QXJVÄ', 'qxjväll', 'mq@example.o', 'MARGUERITE']) {
      const page = await peoplePage(`?search=${encodeURIComponent(search)}`);
      expect(rowIds(page.body), search).toEqual([ids[5990]]);
      expect(page.body).not.toContain('id="search-partial"');
    }
    expect(rowIds((await peoplePage(`?search=${encodeURIComponent('50%_')}`)).body)).toEqual([ids[10]]);
    expect(rowIds((await peoplePage(`?search=${encodeURIComponent('50_%')}`)).body)).toEqual([]);
    expect((await peoplePage('?search=qxjvall')).body).toContain('Nobody here matches.');
  });

  it('looks a search of 3 or more characters up in the trigram index', async () => {
    const { kysely, dialect } = t.deps.db;
    const plan = await planOf(kysely, (db) => findSearchCandidates(db, dialect, 'qxj', 2000));
    if (usingPostgres()) expect(plan).toMatch(/Bitmap Index Scan on users_(display_name|email)_trgm/);
    else expect(plan).toContain('SCAN users_search VIRTUAL TABLE INDEX');
  });

  it('reads a 1 or 2 character search 5,000 people at a time; Keep searching finds the rest', async () => {
    const first = await peoplePage('?search=wu');
    expect(rowIds(first.body)).toEqual([]);
    expect(first.body).toContain('id="search-partial"');
    expect(first.body).not.toContain('Nobody here matches.');
    expect(first.body).toContain('Keep searching →');
    const second = await get(t, owner, nextLink(first.body) as string);
    expect(rowIds(second.body)).toEqual([ids[0]]);
    expect(nextLink(second.body)).toBeUndefined();
  });

  it('pages a very common search in order, like any other filter', async () => {
    // Every e-mail but three contains "person": far more candidates than the index is asked for.
    const matching = ids.filter((_, i) => i !== 0 && i !== 10 && i !== 5990).reverse();
    const first = await peoplePage('?search=person');
    expect(rowIds(first.body)).toEqual(matching.slice(0, 100));
    const second = await get(t, owner, nextLink(first.body) as string);
    expect(rowIds(second.body)).toEqual(matching.slice(100, 200));
    // "Person 59", 590-599 and 5900-5999 but 5990: 110 people, found through the index.
    const byName = await peoplePage('?search=person%2059&order=name');
    expect(rowIds(byName.body)).toHaveLength(100);
    expect(rowIds((await get(t, owner, nextLink(byName.body) as string)).body)).toHaveLength(10);
  });

  it('leaves the index alone when a change keeps the name and e-mail (a pronouns-only edit)', async () => {
    const url = `/v1/collections/${collectionId}/users/${ids[10]}`;
    const indexPages = async () =>
      usingPostgres()
        ? 0
        : (await sql<{ n: number }>`select count(*) as n from users_search_data`.execute(t.deps.db.kysely)).rows[0]?.n;
    const before = await indexPages();
    const edited = await t.request({ method: 'PATCH', url, key, json: { pronouns: 'she/her', display_name: 'Ana 50%_off' } });
    expect(edited.statusCode, edited.body).toBe(200);
    // Rewriting the row's trigrams (with secure-delete, about 1 ms a person) writes a new segment.
    expect(await indexPages()).toBe(before);
    expect(rowIds((await peoplePage(`?search=${encodeURIComponent('50%_')}`)).body)).toEqual([ids[10]]);
  });

  it('follows edits and deletions: old names are not found, new ones are, a deleted person is gone from the index', async () => {
    const url = `/v1/collections/${collectionId}/users/${ids[5990]}`;
    const renamed = await t.request({ method: 'PATCH', url, key, json: { display_name: 'Marguerite Vbnmölk' } });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(rowIds((await peoplePage('?search=qxjv')).body)).toEqual([]);
    expect(rowIds((await peoplePage('?search=vbnmö')).body)).toEqual([ids[5990]]);
    expect((await t.request({ method: 'DELETE', url, key })).statusCode).toBe(200);
    expect(rowIds((await peoplePage('?search=vbnmö')).body)).toEqual([]);
    if (!usingPostgres()) {
      // secure-delete: the index's own pages no longer hold the name's trigrams (a merely
      // deleted-marked entry would leave them there).
      const { rows } = await sql<{ hits: number }>`select
        (select count(*) from users_search_data where instr(block, cast('bnm' as blob)) > 0)
        + (select count(*) from users_search_keys where user_id = ${ids[5990]}) as hits`.execute(t.deps.db.kysely);
      expect(rows[0]?.hits).toBe(0);
    }
  });
});
