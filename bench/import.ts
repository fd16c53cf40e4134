/**
 * CSV import of 10,000 people (`POST /v1/collections/{id}/users/import`) through the real server
 * process: a first import (all created), the same file again (all unchanged), a file where every
 * row changed (all updated), and a dry run. The baseline in the same run is the JSON batch
 * endpoint creating the same 10,000 people (10 requests of 1,000, its limit). Times are wall
 * clock per request on loopback (the server's time plus a negligible client share), medians of
 * BENCH_ROUNDS rounds, each on a fresh collection.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 * Run: npm run bench -- import
 */
import { benchAccount, benchApp } from './lib.js';

const PEOPLE = 10_000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const databaseUrl = process.env.DATABASE_URL;

let key = '';
const app = await benchApp(
  async (deps) => {
    ({ key } = await benchAccount(deps, `bench-import-${Date.now()}@example.com`));
  },
  databaseUrl ? { DATABASE_URL: databaseUrl } : {},
);
const auth = { authorization: `Bearer ${key}` };

async function call(path: string, init: { body: string; type: string }): Promise<{ ms: number; json: Record<string, unknown> }> {
  const started = performance.now();
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': init.type },
    body: init.body,
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (!res.ok) throw new Error(`${path} → ${res.status} ${text.slice(0, 300)}`);
  return { ms, json: JSON.parse(text) as Record<string, unknown> };
}

async function newCollection(): Promise<string> {
  const { json } = await call('/v1/collections', {
    type: 'application/json',
    body: JSON.stringify({
      name: 'Import bench',
      custom_fields: [{ key: 'seat', label: 'Seat number', type: 'number', required: false }],
    }),
  });
  return json.id as string;
}

const person = (i: number, version: string) => ({
  email: `person${i}@example.com`,
  first_name: `First${i}`,
  last_name: i % 10 === 0 ? '' : `Last${i}${version}`,
  external_id: `E${i}`,
  phonetic_spelling: `FIRST-${i}${version}`,
});
const csvOf = (version: string) =>
  [
    'External ID,E-mail,First Name,Surname,Phonetic,Seat number,Notes',
    ...Array.from({ length: PEOPLE }, (_, i) => {
      const p = person(i, version);
      return `${p.external_id},${p.email},${p.first_name},${p.last_name},${p.phonetic_spelling},${i},ignored`;
    }),
  ].join('\r\n');

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const times: Record<string, number[]> = { batch: [], created: [], unchanged: [], updated: [], dryRun: [] };
const original = csvOf('');
const changed = csvOf('x');

console.log(`import of ${PEOPLE.toLocaleString('en')} people, ${ROUNDS} rounds (${databaseUrl ? 'postgres' : 'sqlite'})…`);
try {
  await run();
} finally {
  await app.close();
}

async function run() {
  for (let round = 0; round < ROUNDS; round++) {
    const batchCollection = await newCollection();
    let batchMs = 0;
    for (let from = 0; from < PEOPLE; from += 1000) {
      const users = Array.from({ length: 1000 }, (_, i) => {
        const p = person(from + i, '');
        return { ...p, custom_fields: { seat: from + i } };
      });
      batchMs += (
        await call(`/v1/collections/${batchCollection}/users/batch`, {
          type: 'application/json',
          body: JSON.stringify({ users }),
        })
      ).ms;
    }
    times.batch?.push(batchMs);

    const id = await newCollection();
    const path = `/v1/collections/${id}/users/import`;
    const check = (json: Record<string, unknown>, field: string) => {
      if (json[field] !== PEOPLE) throw new Error(`expected ${PEOPLE} ${field}: ${JSON.stringify(json).slice(0, 300)}`);
    };
    const dry = await call(`${path}?dry_run=true`, { type: 'text/csv', body: original });
    check(dry.json, 'created');
    times.dryRun?.push(dry.ms);
    const created = await call(path, { type: 'text/csv', body: original });
    check(created.json, 'created');
    times.created?.push(created.ms);
    const unchanged = await call(path, { type: 'text/csv', body: original });
    check(unchanged.json, 'unchanged');
    times.unchanged?.push(unchanged.ms);
    const updated = await call(path, { type: 'text/csv', body: changed });
    check(updated.json, 'updated');
    times.updated?.push(updated.ms);
  }
}

const baseline = median(times.batch ?? []);
const rows: [string, number][] = [
  ['JSON batch, 10 × 1,000 (baseline)', baseline],
  ['CSV import, dry run', median(times.dryRun ?? [])],
  ['CSV import, 10,000 created', median(times.created ?? [])],
  ['CSV import, same file again (unchanged)', median(times.unchanged ?? [])],
  ['CSV import, every row changed (updated)', median(times.updated ?? [])],
];
console.log(`\n${'request'.padEnd(44)}${'median ms'.padStart(11)}${'ratio'.padStart(9)}`);
for (const [name, ms] of rows)
  console.log(`${name.padEnd(44)}${ms.toFixed(0).padStart(11)}${(ms / baseline).toFixed(2).padStart(9)}`);
