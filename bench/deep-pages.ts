/**
 * Deep pages: `GET /v1/collections/{id}/users?limit=100` on a collection of BENCH_USERS people
 * (default 1,000,000), page 1 against the middle and the last page (10,000), through the users service in
 * this process. Each page's baseline is the least the endpoint must do: the same page as one raw
 * SQL query (row-value keyset condition, left join to recordings, no service, no mapping); the
 * old `created_at < ? OR (created_at = ? AND id < ?)` condition is timed on the same pages for
 * comparison. Cases are interleaved over BENCH_ROUNDS rounds (default 30; the old condition 5);
 * each row gives the median, this process's CPU time per call (on PostgreSQL the database
 * server's is not in it) and the 1-minute load average.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 * Run: npm run bench -- deep-pages (BENCH_USERS=100000 for a quicker run)
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createDeps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { listUsers } from '../src/features/users/service.js';
import { encodeCursor, type PageCursor } from '../src/lib/pagination.js';
import { benchAccount, benchRounds, loadAverage, median, timedWithCpu } from './lib.js';

const PEOPLE = Number(process.env.BENCH_USERS ?? 1_000_000);
const PAGE = 100;
const ROUNDS = benchRounds(30);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const deps = createDeps(
  loadConfig({
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    BASE_URL: 'http://127.0.0.1:3000',
    ...process.env,
  }),
);
const db = deps.db.kysely;
await migrateToLatest(deps.db);
const { accountId } = await benchAccount(deps, `bench-${Date.now()}@example.com`);
const account = { id: accountId };
const collection = await createCollection(deps, account.id, { name: 'Deep pages' });

console.log(`seeding ${PEOPLE.toLocaleString('en')} people (${deps.db.dialect})…`);
const seedStarted = performance.now();
const base = Date.parse('2026-01-01T00:00:00.000Z');
// A fresh id prefix per run: on PostgreSQL the database outlives the run.
const run = randomBytes(4).toString('hex');
for (let from = 0; from < PEOPLE; from += 1000) {
  const rows = [];
  for (let i = from; i < Math.min(from + 1000, PEOPLE); i++) {
    // Imports create many people in the same millisecond: ten share each timestamp, so the
    // cursor's tie-break on id is exercised.
    const at = new Date(base + Math.floor(i / 10)).toISOString();
    const n = String(i).padStart(12, '0');
    rows.push({
      id: `${run}-0000-4000-8000-${n}`,
      collection_id: collection.id,
      email: `p${i}@example.com`,
      email_normalized: `p${i}@example.com`,
      first_name: 'Person',
      last_name: String(i),
      display_name: `Person ${i}`,
      custom_fields: '{}',
      record_token: `rt${run}${n}`,
      recording_status: 'none' as const,
      import_position: i,
      field_sources: '{}',
      created_at: at,
      updated_at: at,
    });
  }
  await db.insertInto('users').values(rows).execute();
}
if (deps.db.dialect === 'postgres') await sql`analyze users`.execute(db);
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const lastPage = Math.ceil(PEOPLE / PAGE);
const middlePage = Math.ceil(lastPage / 2);
/** The cursor that `next_cursor` of page `n - 1` would carry: the last row before page `n`. */
async function cursorBefore(n: number): Promise<PageCursor> {
  const row = await db
    .selectFrom('users')
    .select(['created_at', 'id'])
    .where('collection_id', '=', collection.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset((n - 1) * PAGE - 1)
    .executeTakeFirstOrThrow();
  return { createdAt: row.created_at, id: row.id };
}

const page = (cursor?: PageCursor) =>
  listUsers(deps, account.id, collection.id, { limit: PAGE, ...(cursor ? { cursor: encodeCursor(cursor) } : {}) });
const oldForm = (cursor: PageCursor) =>
  db
    .selectFrom('users')
    .leftJoin('recordings', 'recordings.user_id', 'users.id')
    .selectAll('users')
    .where('users.collection_id', '=', collection.id)
    .where((eb) =>
      eb.or([
        eb('users.created_at', '<', cursor.createdAt),
        eb.and([eb('users.created_at', '=', cursor.createdAt), eb('users.id', '<', cursor.id)]),
      ]),
    )
    .orderBy('users.created_at', 'desc')
    .orderBy('users.id', 'desc')
    .limit(PAGE + 1)
    .execute();

/** The page as one raw query: what any implementation must at least run. */
const rawPage = (cursor?: PageCursor) =>
  sql`select u.*, r.user_id as recording_user_id, r.duration_ms, r.recorded_at from users u
      left join recordings r on r.user_id = u.id
      where u.collection_id = ${collection.id}
      ${cursor ? sql`and (u.created_at, u.id) < (${cursor.createdAt}, ${cursor.id})` : sql``}
      order by u.created_at desc, u.id desc limit ${PAGE + 1}`.execute(db);

interface Case {
  name: string;
  run: () => Promise<unknown>;
  rounds?: number;
  /** The index of this case's baseline in `cases`. */
  baseline: number;
}
const cases: Case[] = [
  { name: 'page 1, raw SQL (baseline)', run: () => rawPage(), baseline: 0 },
  { name: 'page 1', run: () => page(), baseline: 0 },
  ...(
    await Promise.all(
      [middlePage, lastPage].map(async (n, i): Promise<Case[]> => {
        const cursor = await cursorBefore(n);
        if ((await page(cursor)).data.length === 0) throw new Error(`page ${n} is empty`);
        const baseline = 2 + i * 3;
        return [
          { name: `page ${n.toLocaleString('en')}, raw SQL (baseline)`, run: () => rawPage(cursor), baseline },
          { name: `page ${n.toLocaleString('en')} (row-value cursor)`, run: () => page(cursor), baseline },
          { name: `page ${n.toLocaleString('en')} (old OR condition)`, run: () => oldForm(cursor), rounds: 5, baseline },
        ];
      }),
    )
  ).flat(),
];
// Interleaved, after a warm-up, so every case sees the same cache and machine load.
for (const c of cases) await c.run();
const samples = cases.map(() => [] as { ms: number; cpuMs: number; load: number }[]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, c] of cases.entries()) {
    if (round < (c.rounds ?? ROUNDS)) samples[i]?.push({ ...(await timedWithCpu(c.run)), load: loadAverage() });
  }
}

const medianMs = (i: number) => median((samples[i] ?? []).map((run) => run.ms));
console.log(
  `\nUsers list, ${PAGE} per page, ${PEOPLE.toLocaleString('en')} people, ${deps.db.dialect} (node ${process.version}, medians of ${ROUNDS} rounds)`,
);
console.log(
  `${'page'.padEnd(40)}${'median ms'.padStart(11)}${'vs baseline'.padStart(13)}${'cpu ms'.padStart(9)}${'load 1m'.padStart(9)}`,
);
for (const [i, c] of cases.entries()) {
  const m = medianMs(i);
  const cpu = median((samples[i] ?? []).map((run) => run.cpuMs));
  const load = median((samples[i] ?? []).map((run) => run.load));
  console.log(
    `${c.name.padEnd(40)}${m.toFixed(2).padStart(11)}${(m / medianMs(c.baseline)).toFixed(2).padStart(12)}x${cpu.toFixed(2).padStart(9)}${load.toFixed(2).padStart(9)}`,
  );
}

await db.deleteFrom('collections').where('id', '=', collection.id).execute(); // people go with it
await deps.db.close();
fs.rmSync(dataDir, { recursive: true, force: true });
