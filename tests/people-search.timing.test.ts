/**
 * A people search in a collection of 100,000 holds the event loop no longer than 25 ms, whatever
 * the search: a rare name (the trigram index), one or two characters and a very common text
 * (read 5,000 people per page), in date and name order. Before the index, a search that matched
 * nobody read all 100,000 rows in one synchronous SQLite statement. A timing test: it runs last
 * and alone (the `timing` project).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { cookieHeader, signIn } from './helpers/dashboard.js';
import { usingPostgres } from './helpers/database.js';
import { measureStalls } from './helpers/loop-stalls.js';
import { seedPeople } from './helpers/seed-people.js';

/**
 * Tighter than the service-wide 50 ms: on the development machine a search that read all
 * 100,000 rows held the loop 34-44 ms (0.45-1 s on slower disks and CPUs), an indexed one 3-8 ms.
 */
const MAX_STALL_MS = 25;
const PEOPLE = 100_000;
const OWNER = 'timing-search@example.com';

let t: TestApp & { url: string };
let owner: Awaited<ReturnType<typeof signIn>>;
let collectionId: string;
let ids: string[];

beforeAll(async () => {
  t = await startTestServer({ contractCheck: false });
  owner = await signIn(t, OWNER);
  const { key } = await t.newAccount(OWNER);
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Everyone' } })).json().id;
  ids = await seedPeople(t.deps, collectionId, PEOPLE, { 50_000: { name: 'Zoë Qxjväll', email: 'zq@example.org' } });
  if (usingPostgres()) await sql`analyze users`.execute(t.deps.db.kysely);
}, 120_000);
afterAll(() => t.close());

const SEARCHES: [string, string, (body: string) => void][] = [
  ['a rare name', '?search=qxjv', (body) => expect(body).toContain(`data-person-id="${ids[50_000]}"`)],
  ['a rare name, by name', '?search=qxjv&order=name', (body) => expect(body).toContain(`data-person-id="${ids[50_000]}"`)],
  ['nobody', '?search=nobody-at-all', (body) => expect(body).toContain('Nobody here matches.')],
  ['two characters', '?search=zq', (body) => expect(body).toContain('id="search-partial"')],
  ['very common', '?search=example.com', (body) => expect(body).toContain('Person 99999')],
  ['very common, by name', '?search=person&order=name', (body) => expect(body).toContain('Person 0<')],
];

describe('people search at 100,000 people', () => {
  for (const [label, query, check] of SEARCHES) {
    it(`${label}: no stall over ${MAX_STALL_MS} ms`, async () => {
      const { result, maxBusyStallMs, maxDelayMs, elapsedMs } = await measureStalls(async () => {
        const res = await fetch(`${t.url}/dashboard/collections/${collectionId}${query}`, {
          headers: { cookie: cookieHeader(owner) },
        });
        return { status: res.status, body: await res.text() };
      });
      console.info(label, { elapsedMs: Math.round(elapsedMs), maxBusyStallMs, maxDelayMs });
      expect(result.status).toBe(200);
      check(result.body);
      expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
    });
  }
});
