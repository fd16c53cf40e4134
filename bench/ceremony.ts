/**
 * Every organiser page of a ceremony on a collection of 5,000 people against one of 50, in one
 * account: the people table (first page), a search, review mode, the reader (all names), the
 * first page of name cards and the CSV export. Everyone has a ready recording; with review on,
 * most are approved, one in ten awaits review and one in 25 was rejected; one in three has a
 * pronunciation guide; a custom field (`seat`) is the line-up order. The goal (issue 28): each
 * page's server time at 5,000 within 2x of its time at 50.
 * Server time is the median of BENCH_ROUNDS requests through the whole app (session, routing,
 * services, view) with `app.inject`, the two collections interleaved after a warm-up; the first
 * visit of the name cards (which makes everyone's card code) is timed once per collection. CPU
 * time per request is this process's (the app runs in it; on PostgreSQL the database server's
 * is not in it), beside the 1-minute load average and the longest event-loop stall seen during
 * the page's requests. Baseline in the same run, the least the reader and the name cards must
 * do: one raw SQL query of the rows the page shows (people, guide, card code), in line-up order,
 * rendered into markup by hand (no session, routing, services, view or QR code).
 * SQLite by default; PostgreSQL when DATABASE_URL is set. BENCH_PAGES=reader,cards: only those pages.
 * Run: npm run bench -- ceremony
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDb } from '../src/db/index.js';
import { migrateToLatest } from '../src/db/migrate.js';
import type { RecordingStatus } from '../src/db/schema.js';
import { closeDeps, createDeps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { benchAccount, benchRounds, dashboardSession, loadAverage, median, timedWithCpu } from './lib.js';

const SIZES = [50, Number(process.env.BENCH_USERS ?? 5_000)] as const;
const ROUNDS = benchRounds(15);
const EMAIL = `bench-${Date.now()}@example.com`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const config = loadConfig({
  // Development keeps the last sign-in mail in memory (the log mailer), so the bench can sign in.
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  BASE_URL: 'http://127.0.0.1:3000',
  RUN_WORKER: 'false',
  RATE_LIMIT_PER_MINUTE: '1000000',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
/**
 * On PostgreSQL, a schema of its own: Kysely's migrator looks for its tables in every schema, so
 * on a database the tests also use (one schema per test file) it would skip creating ours.
 */
async function ownSchema(): Promise<string | undefined> {
  if (config.database.dialect !== 'postgres') return undefined;
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: config.database.url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  return schema;
}
const schema = await ownSchema();
const deps = createDeps(config, schema === undefined ? {} : { db: openDb(config.database, { schema, poolSize: 5 }) });
const db = deps.db.kysely;
await migrateToLatest(deps.db);
const { accountId } = await benchAccount(deps, EMAIL);

const FIRST = ['Ana', 'Bo', 'Chidi', 'Dana', 'Emre', 'Farah', 'Göran', 'Hana', 'Ines', 'Jun', 'Kofi', 'Lena', 'Mateo', 'Nia'];
const LAST = ['Diaz', 'Li', 'Okafor', 'Nguyen', 'Yılmaz', 'Haddad', 'Berg', 'Sato', 'Costa', 'Park', 'Mensah', 'Novak'];
const run = randomBytes(4).toString('hex');

const statusOf = (i: number): RecordingStatus => (i % 25 === 1 ? 'needs_rerecord' : i % 10 === 0 ? 'recorded' : 'approved');

/** A collection of `size` people in bulk inserts of 1,000, as an import would leave it. */
async function seedCollection(size: number): Promise<string> {
  const collection = await createCollection(deps, accountId, {
    name: `Ceremony of ${size}`,
    review_required: true,
    custom_fields: [{ key: 'seat', label: 'Seat', type: 'number', required: false }],
  });
  const at = new Date().toISOString();
  for (let from = 0; from < size; from += 1000) {
    const users = [];
    const recordings = [];
    const guides = [];
    for (let i = from; i < Math.min(from + 1000, size); i++) {
      const n = String(i).padStart(12, '0');
      const id = `${run}-${String(size).padStart(4, '0')}-4000-8000-${n}`;
      const first = FIRST[i % FIRST.length] as string;
      const last = `${LAST[Math.floor(i / FIRST.length) % LAST.length]} ${i}`;
      const status = statusOf(i);
      users.push({
        id,
        collection_id: collection.id,
        email: `p${i}@example.com`,
        email_normalized: `p${i}@example.com`,
        first_name: first,
        last_name: last,
        display_name: `${first} ${last}`,
        phonetic_spelling: i % 5 === 0 ? `${first.toUpperCase()} ${last}` : null,
        // Seats run backwards, so the line-up is not the import order.
        custom_fields: JSON.stringify({ seat: size - i }),
        record_token: `rt${run}${size}${n}`,
        recording_status: status,
        review_note: status === 'needs_rerecord' ? 'That was not the name.' : null,
        import_position: i,
        field_sources: '{}',
        created_at: at,
        updated_at: at,
      });
      recordings.push({
        user_id: id,
        blob_key: `recordings/${id}/x.mp3`,
        mime_type: 'audio/mpeg',
        byte_size: 16_000,
        duration_ms: 900,
        recorded_at: at,
      });
      if (i % 3 === 0) {
        guides.push({
          user_id: id,
          ipa: 'ˈana ˈdiaθ',
          respelling: 'AH-nah DEE-ath',
          not_like: i % 6 === 0 ? 'ANNA' : null,
          language: 'es',
          language_suggested: 0,
          source: 'generated' as const,
          method: 'rules',
          generated_from: JSON.stringify([first, last, null, null, null]),
          approved_at: null,
          audio_token: null,
          audio_key: null,
          audio_duration_ms: null,
          created_at: at,
          updated_at: at,
        });
      }
    }
    await db.insertInto('users').values(users).execute();
    await db.insertInto('recordings').values(recordings).execute();
    if (guides.length > 0) await db.insertInto('pronunciations').values(guides).execute();
  }
  const counted = Array.from({ length: size }, (_, i) => statusOf(i)).filter((s) => s === 'approved').length;
  await db
    .updateTable('collections')
    .set({ member_count: size, recorded_count: counted, lineup_order: 'custom:seat' })
    .where('id', '=', collection.id)
    .execute();
  return collection.id;
}

console.log(`seeding ${SIZES.join(' and ')} people (${deps.db.dialect})…`);
const seedStarted = performance.now();
const collections = [] as string[];
for (const size of SIZES) collections.push(await seedCollection(size));
if (deps.db.dialect === 'postgres') await sql`analyze`.execute(db);
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const app = await buildApp(deps);
await app.ready();

const { page } = await dashboardSession(app, deps.mailer, EMAIL);

const escapeHtml = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/**
 * The baseline: the rows the reader (every person) or a page of name cards (`limit`) shows, in
 * line-up order, as one raw query, rendered into markup by hand.
 */
async function bareRows(collectionId: string, limit: number): Promise<string> {
  const seat =
    deps.db.dialect === 'postgres' ? sql`(u.custom_fields::jsonb ->> 'seat')::int` : sql`json_extract(u.custom_fields, '$.seat')`;
  const { rows } = await sql<Record<string, unknown>>`select u.id, u.display_name, u.phonetic_spelling, u.recording_status,
      u.updated_at, p.respelling, p.not_like, s.code from users u
      left join pronunciations p on p.user_id = u.id left join stage_codes s on s.user_id = u.id
      where u.collection_id = ${collectionId} order by ${seat}, u.created_at, u.import_position, u.id limit ${limit}`.execute(db);
  let body = '<!doctype html><ol>';
  for (const row of rows) {
    body += `<li data-id="${escapeHtml(row.id)}" data-status="${escapeHtml(row.recording_status)}" data-version="${escapeHtml(row.updated_at)}">`;
    body += `<h2>${escapeHtml(row.display_name)}</h2><p>${escapeHtml(row.respelling ?? row.phonetic_spelling)}</p>`;
    body += `<p>${escapeHtml(row.not_like)}</p><p>${escapeHtml(row.code)}</p></li>`;
  }
  return `${body}</ol>`;
}

interface PageCase {
  name: string;
  url: (collectionId: string) => string;
  /** Checks the answer holds what the page is for (a page that answers quickly with nothing proves nothing). */
  check: (body: string, size: number) => boolean;
}
const count = (body: string, pattern: RegExp) => (body.match(pattern) ?? []).length;
const allCases: PageCase[] = [
  {
    name: 'people list, first page',
    url: (id) => `/dashboard/collections/${id}`,
    check: (b) => count(b, /<tr data-person-id=/g) > 0,
  },
  {
    // Looking one person up (the registrar's search): one match at either size.
    name: 'search "p42@" (one person)',
    url: (id) => `/dashboard/collections/${id}?search=${encodeURIComponent('p42@')}`,
    check: (b) => count(b, /<tr data-person-id=/g) === 1,
  },
  {
    // A common search: 12 matches at 50 people, over 100 at 5,000 (the window is read in order).
    name: 'search "Okafor 2" (many)',
    url: (id) => `/dashboard/collections/${id}?search=${encodeURIComponent('Okafor 2')}`,
    check: (b) => count(b, /<tr data-person-id=/g) > 0,
  },
  {
    name: 'review mode',
    url: (id) => `/dashboard/collections/${id}/review`,
    check: (b) => b.includes('Okafor') || b.includes('Diaz'),
  },
  {
    name: 'reader (every name)',
    url: (id) => `/dashboard/collections/${id}/reader`,
    check: (b, size) => count(b, /data-person-id=/g) >= size,
  },
  // The page in each other order of its menu (the reader fetched them all on every visit before one page served every order).
  ...['import', 'display_name', 'last_name'].map((order) => ({
    name: `reader ?order=${order}`,
    url: (id: string) => `/dashboard/collections/${id}/reader?order=${order}`,
    check: (b: string, size: number) => count(b, /data-person-id=/g) >= size,
  })),
  { name: 'name cards, first page', url: (id) => `/dashboard/collections/${id}/cards`, check: (b) => b.includes('<path') },
  {
    name: 'export CSV',
    url: (id) => `/dashboard/collections/${id}/export?format=csv`,
    check: (b, size) => count(b, /\n/g) >= size,
  },
];

// BENCH_PAGES=reader,cards: only the pages whose names hold one of these words (for profiling one page).
const only = (process.env.BENCH_PAGES ?? '').split(',').filter(Boolean);
const cases = allCases.filter((c) => only.length === 0 || only.some((word) => c.name.includes(word)));

// The first visit of the name cards makes every card code: timed once, apart.
const firstCards: number[] = [];
for (const id of collections) firstCards.push((await timedWithCpu(() => page(`/dashboard/collections/${id}/cards`))).ms);

for (const c of cases) {
  for (const [i, id] of collections.entries()) {
    const body = (await page(c.url(id))).body;
    if (!c.check(body, SIZES[i] as number)) throw new Error(`${c.name} at ${SIZES[i]}: the page lacks its content`);
  }
}

type Sample = { ms: number; cpuMs: number; load: number; stallMs: number };
const stalls = monitorEventLoopDelay({ resolution: 1 });
stalls.enable();
/** One request, timed, with the longest event-loop stall during it (the loop's delay histogram, reset before). */
async function sample(fn: () => Promise<unknown>): Promise<Sample> {
  stalls.reset();
  const { ms, cpuMs } = await timedWithCpu(fn);
  // Let the monitor's timer fire once after the request, so a stall at its end is counted.
  await new Promise((resolve) => setTimeout(resolve, 2));
  return { ms, cpuMs, load: loadAverage(), stallMs: stalls.max / 1e6 };
}

const rows: { name: string; runs: Sample[][] }[] = [
  ...cases.map((c) => ({ name: c.name, runs: collections.map(() => [] as Sample[]) })),
  { name: 'baseline: raw rows of the reader', runs: collections.map(() => [] as Sample[]) },
  { name: 'baseline: raw rows of a card page', runs: collections.map(() => [] as Sample[]) },
];
const cardsPerPage = (id: string) => page(`/dashboard/collections/${id}/cards`).then((r) => count(r.body, /<path /g));
const cardPageSizes = await Promise.all(collections.map(cardsPerPage));
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, id] of collections.entries()) {
    for (const [c, pageCase] of cases.entries()) rows[c]?.runs[i]?.push(await sample(() => page(pageCase.url(id))));
    rows[cases.length]?.runs[i]?.push(await sample(() => bareRows(id, SIZES[i] as number)));
    rows[cases.length + 1]?.runs[i]?.push(await sample(() => bareRows(id, cardPageSizes[i] as number)));
  }
}
stalls.disable();

const [small, large] = SIZES;
console.log(
  `\nOrganiser pages, ${small} against ${large?.toLocaleString('en')} people, ${deps.db.dialect} ` +
    `(node ${process.version}, ${os.cpus().length} cpus, medians of ${ROUNDS} rounds; cards per page ${cardPageSizes.join(' / ')})`,
);
const head = (label: string) => `${label} ms`.padStart(10);
console.log(
  `${'page'.padEnd(36)}${head(String(small))}${head(String(large))}${'ratio'.padStart(8)}` +
    `${'cpu ms'.padStart(9)}${'cpu ms'.padStart(9)}${'stall ms'.padStart(10)}${'load 1m'.padStart(9)}`,
);
for (const row of rows) {
  const [a = [], b = []] = row.runs;
  const m = (runs: Sample[], pick: (s: Sample) => number) => median(runs.map(pick));
  const ratio = m(b, (s) => s.ms) / m(a, (s) => s.ms);
  console.log(
    `${row.name.padEnd(36)}${m(a, (s) => s.ms)
      .toFixed(2)
      .padStart(10)}${m(b, (s) => s.ms)
      .toFixed(2)
      .padStart(10)}` +
      `${ratio.toFixed(2).padStart(7)}x${m(a, (s) => s.cpuMs)
        .toFixed(1)
        .padStart(9)}${m(b, (s) => s.cpuMs)
        .toFixed(1)
        .padStart(9)}` +
      `${Math.max(...b.map((s) => s.stallMs))
        .toFixed(1)
        .padStart(10)}${m(b, (s) => s.load)
        .toFixed(2)
        .padStart(9)}`,
  );
}
console.log(
  `${'name cards, first visit (makes codes)'.padEnd(36)}${(firstCards[0] ?? 0).toFixed(2).padStart(10)}${(firstCards[1] ?? 0).toFixed(2).padStart(10)}`,
);
console.log('(cpu ms: median per request at each size; stall: longest event-loop stall in any request at the larger size)');

// On PostgreSQL the database outlives the run: the people and everything of theirs go with the
// collections. The schema stays (dropping one while a test file migrates fails that migration).
if (deps.db.dialect === 'postgres') await db.deleteFrom('collections').where('id', 'in', collections).execute();
await app.close();
// Every connection, PostgreSQL's listening one too (it would keep the process alive).
await closeDeps(deps).catch(() => undefined);
fs.rmSync(dataDir, { recursive: true, force: true });
