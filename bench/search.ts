/**
 * The people search at 100,000 people (BENCH_USERS): p50/p95 of the dashboard's people page with
 * a search (a rare name, no match, a common text, two characters, by date and by name) and of the
 * API's e-mail filter, against a baseline in the same run that sends only the raw indexed query
 * (SQLite: the FTS5 trigram MATCH joined to the people, PostgreSQL: the trigram LIKE), no app.
 * Rounds are interleaved (BENCH_ROUNDS, default 40: each round sends every case once); CPU time
 * per request is this process's (app and database driver in one process, /proc/self/stat) over
 * all rounds of a case; the 1-minute load average is printed beside.
 * SQLite by default; PostgreSQL when DATABASE_URL is set. BENCH_BASELINE=off skips the baseline
 * (for running against code without the index).
 * Run: npm run bench -- search
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createDeps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { benchAccount, dashboardSession } from './lib.js';

const PEOPLE = Number(process.env.BENCH_USERS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const BASELINE = process.env.BENCH_BASELINE !== 'off';
const EMAIL = `bench-search-${Date.now()}@example.com`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
const deps = createDeps(
  loadConfig({
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
const collection = await createCollection(deps, accountId, { name: 'Search' });

console.log(`seeding ${PEOPLE.toLocaleString('en')} people (${deps.db.dialect})…`);
const seedStarted = performance.now();
const FIRST = ['Ana', 'Bo', 'Chidi', 'Dana', 'Emre', 'Farah', 'Göran', 'Hana', 'Ines', 'Jun', 'Kofi', 'Lena', 'Mateo', 'Nia'];
const LAST = ['Diaz', 'Li', 'Okafor', 'Nguyen', 'Yılmaz', 'Haddad', 'Berg', 'Sato', 'Costa', 'Park', 'Mensah', 'Novak'];
const run = Date.now().toString(36);
const base = Date.parse('2026-01-01T00:00:00.000Z');
await db.transaction().execute(async (trx) => {
  for (let from = 0; from < PEOPLE; from += 1000) {
    const users = [];
    for (let i = from; i < Math.min(from + 1000, PEOPLE); i++) {
      const at = new Date(base + i * 10).toISOString();
      const first = i === 4242 ? 'Qxanthe' : (FIRST[i % FIRST.length] as string);
      const last = `${LAST[Math.floor(i / FIRST.length) % LAST.length]} ${i}`;
      users.push({
        id: `${run}-${String(i).padStart(12, '0')}`,
        collection_id: collection.id,
        email: `p${i}@example.com`,
        email_normalized: `p${i}@example.com`,
        first_name: first,
        last_name: last,
        display_name: `${first} ${last}`,
        custom_fields: '{}',
        record_token: `rt${run}${i}`,
        recording_status: 'none' as const,
        import_position: i,
        field_sources: '{}',
        created_at: at,
        updated_at: at,
      });
    }
    await trx.insertInto('users').values(users).execute();
  }
});
await db.updateTable('collections').set({ member_count: PEOPLE }).where('id', '=', collection.id).execute();
if (deps.db.dialect === 'postgres') await sql`analyze`.execute(db);
console.log(`seeded in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

const app = await buildApp(deps);
await app.ready();

const { cookie } = await dashboardSession(app, deps.mailer, EMAIL);

const people = `/dashboard/collections/${collection.id}`;
const viaApp =
  (url: string, headers: Record<string, string> = {}) =>
  async () => {
    const res = await app.inject({ method: 'GET', url, headers: { cookie: cookie(), ...headers } });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
  };

/** The least a search must do: the indexed lookup of the matching people, in order, 101 rows. */
const rawIndexedSearch = async () => {
  if (deps.db.dialect === 'sqlite') {
    await sql`select users.* from users_search join users_search_keys k on k.rowid = users_search.rowid
      join users on users.id = k.user_id
      where users_search match '"qxanthe"' and users.collection_id = ${collection.id}
      order by users.created_at desc, users.id desc limit 101`.execute(db);
  } else {
    await sql`select * from (select * from users where lower(display_name) like '%qxanthe%' or email_normalized like '%qxanthe%' limit 2001) u
      where u.collection_id = ${collection.id} order by u.created_at desc, u.id desc limit 101`.execute(db);
  }
};

const cases: { name: string; run: () => Promise<void> }[] = [
  ...(BASELINE ? [{ name: 'raw indexed query (baseline)', run: rawIndexedSearch }] : []),
  { name: 'search "qxanthe" (1 match)', run: viaApp(`${people}?search=qxanthe`) },
  { name: 'search "qxanthe" by name', run: viaApp(`${people}?search=qxanthe&order=name`) },
  { name: 'search "nobody" (no match)', run: viaApp(`${people}?search=nobody`) },
  { name: 'search "p4242@" (e-mail, 1 match)', run: viaApp(`${people}?search=${encodeURIComponent('p4242@')}`) },
  { name: 'search "example" (everyone)', run: viaApp(`${people}?search=example`) },
  { name: 'search "qx" (2 characters)', run: viaApp(`${people}?search=qx`) },
  {
    name: 'GET /v1 …/users?email= (API filter)',
    run: viaApp(`/v1/collections/${collection.id}/users?email=p4242%40example.com`, { authorization: `Bearer ${key}` }),
  },
];

/** This process's CPU time in ms (utime + stime from /proc; clock ticks of 10 ms). */
const cpuMs = () => {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) * 10;
};
const samples = cases.map(() => [] as number[]);
const cpu = cases.map(() => 0);
for (const c of cases) await c.run();
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, c] of cases.entries()) {
    const cpuBefore = cpuMs();
    const started = performance.now();
    await c.run();
    samples[i]?.push(performance.now() - started);
    cpu[i] = (cpu[i] ?? 0) + cpuMs() - cpuBefore;
  }
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] as number;
const baselineP50 = BASELINE ? quantile(samples[0] ?? [], 0.5) : Number.NaN;
console.log(
  `\nPeople search, ${PEOPLE.toLocaleString('en')} people, ${deps.db.dialect} (node ${process.version}, ${ROUNDS} interleaved rounds, load average ${os.loadavg()[0]?.toFixed(2)})`,
);
console.log(
  `${'request'.padEnd(40)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'CPU ms/req'.padStart(12)}${'p50 ratio'.padStart(11)}`,
);
for (const [i, c] of cases.entries()) {
  const p50 = quantile(samples[i] ?? [], 0.5);
  const p95 = quantile(samples[i] ?? [], 0.95);
  console.log(
    `${c.name.padEnd(40)}${p50.toFixed(2).padStart(9)}${p95.toFixed(2).padStart(9)}${((cpu[i] ?? 0) / ROUNDS).toFixed(1).padStart(12)}${(p50 / baselineP50).toFixed(2).padStart(10)}x`,
  );
}

if (deps.db.dialect === 'postgres') await db.deleteFrom('collections').where('id', '=', collection.id).execute();
await app.close();
await deps.db.close().catch(() => undefined);
fs.rmSync(dataDir, { recursive: true, force: true });
// The play-link cache's LISTEN connection (PostgreSQL) would keep the process alive.
process.exit(0);
