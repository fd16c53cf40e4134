/**
 * Every JSON endpoint worth timing, through the whole stack (auth, rate limit, validation,
 * serialisation, SQLite), against a bare node:http server doing the same database work through
 * the same service functions (bench/bare-db-server.ts). Baseline and API are measured in
 * alternating rounds and each reported as its best round, so neither gets the quieter half of the
 * run. Goal for the collections list: >= 0.8x the baseline's requests/s, p99 <= 2x.
 * Run: npm run bench -- json (BENCH_SECONDS per round, default 5; BENCH_ROUNDS, default 2).
 */
import { createCollection } from '../src/features/collections/service.js';
import { bareDbServer, benchAccount, benchApp, type LoadOptions, measure, type Measurement, report } from './lib.js';
import { seedPlayLinks } from './seed.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

let key = '';
let seeded = { collectionId: '', tokens: [] as string[], userIds: [] as string[] };
const app = await benchApp(async (deps) => {
  const { key: created, accountId } = await benchAccount(deps, 'bench@example.com');
  key = created;
  for (let i = 0; i < 200; i++) await createCollection(deps, accountId, { name: `Collection ${i}`, description: 'bench' });
  seeded = await seedPlayLinks(deps, 1_000);
});
const bare = await bareDbServer(app);
const auth = { authorization: `Bearer ${key}` };
const json = { ...auth, 'content-type': 'application/json' };
const createBody = JSON.stringify({ name: 'Bench collection', description: 'created under load' });
const { collectionId } = seeded;
const ids = seeded.userIds.slice(0, 100).join(',');
const token = seeded.tokens[0] as string;

interface Pair {
  title: string;
  api: [string, LoadOptions];
  baseline: LoadOptions;
}
const pairs: Pair[] = [
  {
    title: 'List collections',
    api: ['GET /v1/collections?limit=50', { url: `${app.url}/v1/collections?limit=50`, headers: auth }],
    baseline: { url: `${bare.url}/collections`, headers: auth },
  },
  {
    title: 'Create a collection',
    api: ['POST /v1/collections', { url: `${app.url}/v1/collections`, method: 'POST', headers: json, body: createBody }],
    baseline: { url: `${bare.url}/collections`, method: 'POST', headers: json, body: createBody },
  },
  {
    title: 'List people',
    api: [
      'GET /v1/collections/{id}/users?limit=50',
      { url: `${app.url}/v1/collections/${collectionId}/users?limit=50`, headers: auth },
    ],
    baseline: { url: `${bare.url}/users?collection_id=${collectionId}`, headers: auth },
  },
  {
    title: 'Batch of 100 play links (10 connections)',
    api: [
      'GET /v1/play-links/batch (100 ids)',
      { url: `${app.url}/v1/play-links/batch?collection_id=${collectionId}&user_ids=${ids}`, headers: auth, connections: 10 },
    ],
    baseline: { url: `${bare.url}/batch?collection_id=${collectionId}&user_ids=${ids}`, headers: auth, connections: 10 },
  },
  {
    title: "A play link's public metadata",
    api: ['GET /p/{token}/meta', { url: `${app.url}/p/${token}/meta` }],
    baseline: { url: `${bare.url}/meta/${token}` },
  },
];

const best = (runs: Measurement[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
for (const pair of pairs) {
  const baselineRuns: Measurement[] = [];
  const apiRuns: Measurement[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baselineRuns.push(await measure('bare node:http, same service calls', pair.baseline));
    apiRuns.push(await measure(pair.api[0], pair.api[1]));
  }
  report(pair.title, best(baselineRuns), [best(apiRuns)]);
}

await bare.close();
await app.close();
