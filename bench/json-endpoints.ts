/**
 * Every JSON endpoint worth timing, through the whole stack (auth, rate limit, validation,
 * serialisation, SQLite), against bench/bare-json-server.ts: a bare node:http server in its own
 * process doing the least each endpoint must do with raw SQL, answering byte-identical bodies
 * (checked before measuring) with the app's headers. Rounds alternate between baseline and API
 * (BENCH_ROUNDS, default 5, of BENCH_SECONDS, default 5), and every figure is the median of its
 * side's rounds, with the server's CPU time per request and the load average beside it.
 * Run: npm run bench -- json
 */
import { createCollection } from '../src/features/collections/service.js';
import { bareJsonServer, benchAccount, benchApp, interleavedRounds, type LoadOptions, report } from './lib.js';
import { seedPlayLinks } from './seed.js';

let key = '';
let seeded = { collectionId: '', tokens: [] as string[], userIds: [] as string[] };
const app = await benchApp(async (deps) => {
  const { key: created, accountId } = await benchAccount(deps, 'bench@example.com');
  key = created;
  for (let i = 0; i < 200; i++) await createCollection(deps, accountId, { name: `Collection ${i}`, description: 'bench' });
  seeded = await seedPlayLinks(deps, 1_000);
});
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, 'content-type': 'application/json' };
const createBody = JSON.stringify({ name: 'Bench collection', description: 'created under load' });
const { collectionId } = seeded;
const ids = seeded.userIds.slice(0, 100).join(',');
const token = seeded.tokens[0] as string;

interface Pair {
  title: string;
  /** The baseline's route name (bench/bare-json-server.ts answers it with the app's headers). */
  route: string;
  api: [string, LoadOptions];
  baseline: string;
  /** Bodies hold a new id and time on every request: compared by shape only. */
  creates?: boolean;
}
const pairs: Pair[] = [
  {
    title: 'List collections',
    route: 'collections',
    api: ['GET /v1/collections?limit=50', { url: `${app.url}/v1/collections?limit=50`, headers: auth }],
    baseline: '/collections',
  },
  {
    title: 'Create a collection',
    route: 'create',
    api: ['POST /v1/collections', { url: `${app.url}/v1/collections`, method: 'POST', headers: json, body: createBody }],
    baseline: '/collections',
    creates: true,
  },
  {
    title: 'List people',
    route: 'users',
    api: [
      'GET /v1/collections/{id}/users?limit=50',
      { url: `${app.url}/v1/collections/${collectionId}/users?limit=50`, headers: auth },
    ],
    baseline: `/users?collection_id=${collectionId}`,
  },
  {
    title: 'Batch of 100 play links (10 connections)',
    route: 'batch',
    api: [
      'GET /v1/play-links/batch (100 ids)',
      { url: `${app.url}/v1/play-links/batch?collection_id=${collectionId}&user_ids=${ids}`, headers: auth, connections: 10 },
    ],
    baseline: `/batch?collection_id=${collectionId}&user_ids=${ids}`,
  },
  {
    title: "A play link's public metadata",
    route: 'meta',
    api: ['GET /p/{token}/meta', { url: `${app.url}/p/${token}/meta` }],
    baseline: `/meta/${token}`,
  },
];

/** Headers that differ per answer or per connection, left to each server. */
const OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'x-request-id', 'transfer-encoding']);
const once = (load: LoadOptions, url = load.url) =>
  fetch(url, { method: load.method ?? 'GET', headers: load.headers ?? {}, ...(load.body ? { body: load.body } : {}) });

// The app's headers per route, handed to the baseline so both send the same bytes.
const headers: Record<string, Record<string, string>> = {};
for (const pair of pairs) {
  const response = await once(pair.api[1]);
  await response.arrayBuffer();
  headers[pair.route] = Object.fromEntries([...response.headers].filter(([name]) => !OWN_HEADERS.has(name)));
}
const bare = await bareJsonServer(app, headers);

for (const pair of pairs) {
  const load = pair.api[1];
  const [ours, theirs] = await Promise.all([once(load), once(load, `${bare.url}${pair.baseline}`)]);
  const shape = (text: string) => (pair.creates ? text.replace(/"[^"]*\d{4}-\d\d-\d\dT[^"]*"|"[0-9a-f-]{36}"/g, '"…"') : text);
  const [a, b] = [shape(await ours.text()), shape(await theirs.text())];
  if (ours.status !== theirs.status || a !== b) {
    throw new Error(
      `${pair.title}: the baseline's answer differs from the app's (${ours.status} ${a.slice(0, 300)} vs ${theirs.status} ${b.slice(0, 300)})`,
    );
  }
}

for (const pair of pairs) {
  const [baseline, api] = await interleavedRounds([
    { name: 'bare node:http, raw SQL', load: { ...pair.api[1], url: `${bare.url}${pair.baseline}` }, pid: bare.pid },
    { name: pair.api[0], load: pair.api[1], pid: app.serverPid },
  ]);
  report(pair.title, baseline as NonNullable<typeof baseline>, [api as NonNullable<typeof api>]);
}

await bare.close();
await app.close();
