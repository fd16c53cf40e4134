/**
 * CSV import of 10,000 people (`POST /v1/collections/{id}/users/import`) through the real server
 * process: a first import (all created), the same file again (all unchanged), a file where every
 * row changed (all updated), and a dry run. The baseline in the same run is the least an import
 * must do, by hand: bench/bare-import-server.ts, its own process over the app's SQLite file,
 * upserting the same CSV with one prepared statement in one transaction (first file, same file
 * again, every row changed). The JSON batch endpoint creating the same 10,000 people (10 requests
 * of 1,000, its limit) is shown for reference. Times are wall clock per request on loopback (the
 * server's time plus a negligible client share), medians of BENCH_ROUNDS rounds (default 5),
 * interleaved, each on a fresh collection, with the serving process's CPU time per request
 * (/proc/<pid>/stat) and the 1-minute load average.
 * SQLite by default; PostgreSQL when DATABASE_URL is set (then without the bare baseline, which
 * reads the SQLite file: ratios are to the JSON batch).
 * Run: npm run bench -- import
 */
import { baselineServer, benchAccount, benchApp, benchRounds, loadAverage, median, timedWithCpu } from './lib.js';

const PEOPLE = 10_000;
const ROUNDS = benchRounds();
const databaseUrl = process.env.DATABASE_URL;

let key = '';
const app = await benchApp(
  async (deps) => {
    ({ key } = await benchAccount(deps, `bench-import-${Date.now()}@example.com`));
  },
  databaseUrl ? { DATABASE_URL: databaseUrl } : {},
);
const auth = { authorization: `Bearer ${key}` };
const bare = databaseUrl ? null : await baselineServer('bare-import-server.ts', app.settings);

interface Timed {
  ms: number;
  cpuMs: number;
  load: number;
  json: Record<string, unknown>;
}
/** One POST to the app (or to `base`, served by process `pid`), timed with that process's CPU time. */
async function call(
  path: string,
  init: { body: string; type: string },
  server: { url: string; pid: number } = { url: app.url, pid: app.serverPid },
): Promise<Timed> {
  const { value: text, ...time } = await timedWithCpu(async () => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': init.type },
      body: init.body,
    });
    const body = await res.text();
    if (!res.ok) throw new Error(`${path} → ${res.status} ${body.slice(0, 300)}`);
    return body;
  }, server.pid);
  return { ...time, load: loadAverage(), json: JSON.parse(text) as Record<string, unknown> };
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

type Figures = Omit<Timed, 'json'>;
const times: Record<string, Figures[]> = {
  bareCreated: [],
  bareUnchanged: [],
  bareUpdated: [],
  batch: [],
  created: [],
  unchanged: [],
  updated: [],
  dryRun: [],
};
const original = csvOf('');
const changed = csvOf('x');

console.log(`import of ${PEOPLE.toLocaleString('en')} people, ${ROUNDS} rounds (${databaseUrl ? 'postgres' : 'sqlite'})…`);
try {
  await run();
} finally {
  await bare?.close();
  await app.close();
}

async function run() {
  for (let round = 0; round < ROUNDS; round++) {
    if (bare) {
      const bareCollection = await newCollection();
      const server = { url: bare.url, pid: bare.pid };
      const path = `/import?collection_id=${bareCollection}`;
      const created = await call(path, { type: 'text/csv', body: original }, server);
      const unchanged = await call(path, { type: 'text/csv', body: original }, server);
      const updated = await call(path, { type: 'text/csv', body: changed }, server);
      if ([created, unchanged, updated].map((r) => r.json.written).join() !== `${PEOPLE},0,${PEOPLE}`) {
        throw new Error(`the bare import wrote ${[created, unchanged, updated].map((r) => r.json.written).join()}`);
      }
      times.bareCreated?.push(created);
      times.bareUnchanged?.push(unchanged);
      times.bareUpdated?.push(updated);
    }

    const batchCollection = await newCollection();
    const batch: Figures = { ms: 0, cpuMs: 0, load: 0 };
    for (let from = 0; from < PEOPLE; from += 1000) {
      const users = Array.from({ length: 1000 }, (_, i) => {
        const p = person(from + i, '');
        return { ...p, custom_fields: { seat: from + i } };
      });
      const part = await call(`/v1/collections/${batchCollection}/users/batch`, {
        type: 'application/json',
        body: JSON.stringify({ users }),
      });
      batch.ms += part.ms;
      batch.cpuMs += part.cpuMs;
      batch.load = part.load;
    }
    times.batch?.push(batch);

    const id = await newCollection();
    const path = `/v1/collections/${id}/users/import`;
    const check = (json: Record<string, unknown>, field: string) => {
      if (json[field] !== PEOPLE) throw new Error(`expected ${PEOPLE} ${field}: ${JSON.stringify(json).slice(0, 300)}`);
    };
    const dry = await call(`${path}?dry_run=true`, { type: 'text/csv', body: original });
    check(dry.json, 'created');
    times.dryRun?.push(dry);
    const created = await call(path, { type: 'text/csv', body: original });
    check(created.json, 'created');
    times.created?.push(created);
    const unchanged = await call(path, { type: 'text/csv', body: original });
    check(unchanged.json, 'unchanged');
    times.unchanged?.push(unchanged);
    const updated = await call(path, { type: 'text/csv', body: changed });
    check(updated.json, 'updated');
    times.updated?.push(updated);
  }
}

const of = (name: string, pick: (figures: Figures) => number) => median((times[name] ?? []).map(pick));
const rows: [string, string, string][] = [
  ...(bare
    ? ([
        ['bare upsert, 10,000 created (baseline)', 'bareCreated', 'bareCreated'],
        ['bare upsert, same file again (baseline)', 'bareUnchanged', 'bareUnchanged'],
        ['bare upsert, every row changed (baseline)', 'bareUpdated', 'bareUpdated'],
      ] as [string, string, string][])
    : []),
  ['JSON batch, 10 × 1,000 (reference)', 'batch', bare ? 'bareCreated' : 'batch'],
  ['CSV import, dry run', 'dryRun', bare ? 'bareCreated' : 'batch'],
  ['CSV import, 10,000 created', 'created', bare ? 'bareCreated' : 'batch'],
  ['CSV import, same file again (unchanged)', 'unchanged', bare ? 'bareUnchanged' : 'batch'],
  ['CSV import, every row changed (updated)', 'updated', bare ? 'bareUpdated' : 'batch'],
];
console.log(
  `\n${'request'.padEnd(44)}${'median ms'.padStart(11)}${'ratio'.padStart(9)}${'cpu ms'.padStart(9)}${'load 1m'.padStart(9)}`,
);
for (const [label, name, baseline] of rows) {
  const ms = of(name, (f) => f.ms);
  console.log(
    `${label.padEnd(44)}${ms.toFixed(0).padStart(11)}${(ms / of(baseline, (f) => f.ms)).toFixed(2).padStart(9)}` +
      `${of(name, (f) => f.cpuMs)
        .toFixed(0)
        .padStart(9)}${of(name, (f) => f.load)
        .toFixed(2)
        .padStart(9)}`,
  );
}
console.log('ratio: to the bare upsert of the same file (dry run: to the first); cpu: the serving process, per request');
