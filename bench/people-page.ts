/**
 * The dashboard's people page (`/dashboard/collections/{id}`, 100 rows, rendered HTML) on a
 * collection of BENCH_USERS people (default 100,000, 1 % recorded): the first page and page
 * 500 in each order, and the slowest filters (a search or a filter matching few people reads the
 * whole collection's index range). Server time, median of BENCH_ROUNDS requests through the
 * whole app (session, routing, query, view) with `app.inject`, interleaved after a warm-up.
 * Baseline in the same run: the least the first page must do, by hand: one raw SQL query of the
 * 100 newest people (left join to recordings) rendered into table rows with string concatenation
 * and escaping (no session, routing, service or view). The JSON list of the same page is shown
 * for reference. The app runs in this process, so each row's CPU time per request is this
 * process's (on PostgreSQL the database server's is not in it), beside the 1-minute load average.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 * Run: npm run bench -- people-page
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { RecordingStatus } from '../src/db/schema.js';
import { createDeps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { benchAccount, benchRounds, dashboardSession, loadAverage, median, timedWithCpu } from './lib.js';

const PEOPLE = Number(process.env.BENCH_USERS ?? 100_000);
const ROUNDS = benchRounds(30);
const DEEP_PAGE = 500;
const EMAIL = `bench-${Date.now()}@example.com`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const deps = createDeps(
  loadConfig({
    // Development keeps the last sign-in mail in memory (the log mailer), so the bench can sign in.
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    BASE_URL: 'http://127.0.0.1:3000',
    RUN_WORKER: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
  }),
);
const db = deps.db.kysely;
await migrateToLatest(deps.db);
const { key, accountId } = await benchAccount(deps, EMAIL);
const collection = await createCollection(deps, accountId, { name: 'People page' });

console.log(`seeding ${PEOPLE.toLocaleString('en')} people (${deps.db.dialect})…`);
const seedStarted = performance.now();
const FIRST = ['Ana', 'Bo', 'Chidi', 'Dana', 'Emre', 'Farah', 'Göran', 'Hana', 'Ines', 'Jun', 'Kofi', 'Lena', 'Mateo', 'Nia'];
const LAST = ['Diaz', 'Li', 'Okafor', 'Nguyen', 'Yılmaz', 'Haddad', 'Berg', 'Sato', 'Costa', 'Park', 'Mensah', 'Novak'];
const run = randomBytes(4).toString('hex');
const base = Date.parse('2026-01-01T00:00:00.000Z');
for (let from = 0; from < PEOPLE; from += 1000) {
  const users = [];
  const recordings = [];
  for (let i = from; i < Math.min(from + 1000, PEOPLE); i++) {
    const at = new Date(base + Math.floor(i / 10)).toISOString();
    const n = String(i).padStart(12, '0');
    const id = `${run}-0000-4000-8000-${n}`;
    const first = FIRST[i % FIRST.length] as string;
    const last = `${LAST[Math.floor(i / FIRST.length) % LAST.length]} ${i}`;
    users.push({
      id,
      collection_id: collection.id,
      email: `p${i}@example.com`,
      email_normalized: `p${i}@example.com`,
      first_name: first,
      last_name: last,
      display_name: `${first} ${last}`,
      custom_fields: '{}',
      record_token: `rt${run}${n}`,
      recording_status: (i % 100 === 0 ? 'recorded' : 'none') as RecordingStatus,
      import_position: 0,
      field_sources: '{}',
      created_at: at,
      updated_at: at,
    });
    if (i % 100 === 0) {
      recordings.push({
        user_id: id,
        blob_key: `recordings/${id}/x.mp3`,
        mime_type: 'audio/mpeg',
        byte_size: 1,
        duration_ms: 900,
        recorded_at: at,
      });
    }
  }
  await db.insertInto('users').values(users).execute();
  if (recordings.length > 0) await db.insertInto('recordings').values(recordings).execute();
}
await db
  .updateTable('collections')
  .set({ member_count: PEOPLE, recorded_count: Math.ceil(PEOPLE / 100) })
  .where('id', '=', collection.id)
  .execute();
if (deps.db.dialect === 'postgres') await sql`analyze`.execute(db);
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const app = await buildApp(deps);
await app.ready();

const { page, cookie } = await dashboardSession(app, deps.mailer, EMAIL);

const people = `/dashboard/collections/${collection.id}`;
const nextOf = (body: string) => /rel="next" href="([^"]+)"/.exec(body)?.[1]?.replace(/&amp;/g, '&');
/** The URL of page `n` in an order, by following the pages' own "Next" links. */
async function pageUrl(query: string, n: number): Promise<string> {
  let url = `${people}${query}`;
  for (let i = 1; i < n; i++) url = nextOf((await page(url)).body) as string;
  return url;
}
const rowsOf = (body: string) => (body.match(/<tr data-person-id=/g) ?? []).length;

const escapeHtml = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** The baseline: the first page's query as raw SQL, rendered into rows by hand. */
async function barePage(): Promise<string> {
  const { rows } = await sql<Record<string, unknown>>`select u.id, u.display_name, u.email, u.recording_status,
      r.duration_ms from users u left join recordings r on r.user_id = u.id
      where u.collection_id = ${collection.id} order by u.created_at desc, u.id desc limit 101`.execute(db);
  let body = '<!doctype html><table><tbody>';
  for (const row of rows.slice(0, 100)) {
    body += `<tr data-person-id="${escapeHtml(row.id)}"><td>${escapeHtml(row.display_name)}</td><td>${escapeHtml(row.email)}</td>`;
    body += `<td>${escapeHtml(row.recording_status)}</td><td>${escapeHtml(row.duration_ms)}</td></tr>`;
  }
  return `${body}</tbody></table>`;
}
if (rowsOf(await barePage()) !== 100) throw new Error('the baseline page has no rows');

const cases: { name: string; url: string; headers?: Record<string, string> }[] = [
  {
    name: 'GET /v1 …/users?limit=100 (JSON, reference)',
    url: `/v1/collections/${collection.id}/users?limit=100`,
    headers: { authorization: `Bearer ${key}` },
  },
  { name: 'people page 1, newest', url: people },
  { name: `people page ${DEEP_PAGE}, newest`, url: await pageUrl('', DEEP_PAGE) },
  { name: 'people page 1, by name', url: `${people}?order=name` },
  { name: `people page ${DEEP_PAGE}, by name`, url: await pageUrl('?order=name', DEEP_PAGE) },
  { name: 'recorded only (1 %), page 1', url: `${people}?status=recorded` },
  { name: 'recorded only (1 %), page 1, by name', url: `${people}?status=recorded&order=name` },
  { name: 'search "p4242@" (1 match)', url: `${people}?search=${encodeURIComponent('p4242@')}` },
  { name: 'search "nobody" (no match)', url: `${people}?search=nobody` },
];
for (const c of cases.slice(1)) {
  const rows = rowsOf((await page(c.url)).body);
  if (rows === 0 && !c.name.includes('no match')) throw new Error(`${c.name}: no rows`);
}

type Sample = { ms: number; cpuMs: number; load: number };
const bareSamples: Sample[] = [];
const samples = cases.map(() => [] as Sample[]);
for (const c of cases) await app.inject({ method: 'GET', url: c.url, headers: c.headers ?? { cookie: cookie() } });
for (let round = 0; round < ROUNDS; round++) {
  bareSamples.push({ ...(await timedWithCpu(barePage)), load: loadAverage() });
  for (const [i, c] of cases.entries()) {
    const { value: res, ...time } = await timedWithCpu(() =>
      app.inject({ method: 'GET', url: c.url, headers: c.headers ?? { cookie: cookie() } }),
    );
    samples[i]?.push({ ...time, load: loadAverage() });
    if (res.statusCode !== 200) throw new Error(`${c.name}: ${res.statusCode}`);
  }
}

const baseline = median(bareSamples.map((sample) => sample.ms));
console.log(
  `\nPeople page, 100 per page, ${PEOPLE.toLocaleString('en')} people, ${deps.db.dialect} (node ${process.version}, medians of ${ROUNDS} rounds)`,
);
console.log(
  `${'request'.padEnd(44)}${'median ms'.padStart(11)}${'vs baseline'.padStart(13)}${'cpu ms'.padStart(9)}${'load 1m'.padStart(9)}`,
);
for (const [name, runs] of [
  ['raw SQL + hand-written rows (baseline)', bareSamples] as const,
  ...cases.map((c, i) => [c.name, samples[i] ?? []] as const),
]) {
  const m = median(runs.map((run) => run.ms));
  console.log(
    `${name.padEnd(44)}${m.toFixed(2).padStart(11)}${(m / baseline).toFixed(2).padStart(12)}x` +
      `${median(runs.map((run) => run.cpuMs))
        .toFixed(2)
        .padStart(9)}${median(runs.map((run) => run.load))
        .toFixed(2)
        .padStart(9)}`,
  );
}

// On PostgreSQL the database outlives the run; the people and recordings go with the collection.
if (deps.db.dialect === 'postgres') await db.deleteFrom('collections').where('id', '=', collection.id).execute();
await app.close();
await deps.db.close().catch(() => undefined);
fs.rmSync(dataDir, { recursive: true, force: true });
