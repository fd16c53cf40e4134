/**
 * `npm run soak`: the server under a steady mixed workload for SOAK_SECONDS (default 600) at
 * SOAK_LOAD (default 0.7) of the capacity measured first, on loopback only. Reports errors
 * (must be 0), p99 per route, and the server's RSS at start and end (must stay within 10 %);
 * exits non-zero when either is broken; the 1-minute load average is printed beside the capacity
 * and the soak's figures. Not part of CI (it runs for minutes).
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import { createCollection } from '../src/features/collections/service.js';
import { createUser } from '../src/features/users/create-service.js';
import { benchAccount, benchApp, loadAverage } from './lib.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7);

let key = '';
let collectionId = '';
const userIds: string[] = [];
const app = await benchApp(async (deps) => {
  const created = await benchAccount(deps, 'soak@example.com');
  key = created.key;
  const account = { id: created.accountId };
  const collection = await createCollection(deps, account.id, { name: 'Soak' });
  collectionId = collection.id;
  for (let i = 0; i < 200; i++) {
    const user = await createUser(deps, account.id, collectionId, {
      email: `p${i}@example.com`,
      first_name: 'Ana',
      last_name: `Diaz ${i}`,
    });
    userIds.push(user.id);
  }
});
const auth = { authorization: `Bearer ${key}` };
const pick = () => userIds[Math.floor(Math.random() * userIds.length)] as string;
let created = 0;

/** The mixed workload: mostly reads, some writes, as integrators and pages use the service. */
const routes: { name: string; share: number; request: () => autocannon.Request }[] = [
  {
    name: 'GET /v1/collections',
    share: 0.2,
    request: () => ({ method: 'GET', path: '/v1/collections?limit=50', headers: auth }),
  },
  {
    name: 'GET /v1/collections/{id}/users',
    share: 0.25,
    request: () => ({ method: 'GET', path: `/v1/collections/${collectionId}/users?limit=50`, headers: auth }),
  },
  {
    name: 'GET /v1/play-links/batch',
    share: 0.25,
    request: () => ({
      method: 'GET',
      path: `/v1/play-links/batch?collection_id=${collectionId}&user_ids=${[pick(), pick(), pick()].join(',')}`,
      headers: auth,
    }),
  },
  {
    name: 'POST /v1/collections/{id}/users',
    share: 0.1,
    request: () => ({
      method: 'POST',
      path: `/v1/collections/${collectionId}/users`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `soak-${process.pid}-${created++}@example.com`, first_name: 'Soak', last_name: 'Test' }),
    }),
  },
  {
    name: 'POST /v1/collections',
    share: 0.1,
    request: () => ({
      method: 'POST',
      path: '/v1/collections',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"name":"Soak"}',
    }),
  },
  { name: 'GET /healthz', share: 0.1, request: () => ({ method: 'GET', path: '/healthz' }) },
];

const rssMb = () => {
  const status = fs.readFileSync(`/proc/${app.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
};

function run(route: (typeof routes)[number], seconds: number, rate?: number): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: app.url,
        connections: 10,
        duration: seconds,
        ...(rate === undefined ? {} : { overallRate: Math.max(1, Math.round(rate)) }),
        requests: [{ setupRequest: (request) => ({ ...request, ...route.request() }) }],
      },
      (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
    );
  });
}

// Capacity: each route alone at full speed for a few seconds; the mix's capacity follows from the shares.
const perRoute: number[] = [];
for (const route of routes) perRoute.push((await run(route, 3)).requests.average); // one at a time
const mixCapacity = 1 / routes.reduce((sum, route, i) => sum + route.share / (perRoute[i] as number), 0);
console.log(
  `capacity of the mix: ${mixCapacity.toFixed(0)} req/s (load ${loadAverage().toFixed(2)}); soaking at ${(LOAD * 100).toFixed(0)} % for ${SECONDS} s`,
);

await new Promise((resolve) => setTimeout(resolve, 2000));
const rssStart = rssMb();
const results = await Promise.all(routes.map((route) => run(route, SECONDS, mixCapacity * LOAD * route.share)));
const rssEnd = rssMb();
const soakLoad = loadAverage();

let errors = 0;
console.log(`\n${'route'.padEnd(36)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}  errors`);
for (const [i, route] of routes.entries()) {
  const result = results[i] as autocannon.Result;
  const bad = result.errors + result.timeouts + result.non2xx;
  errors += bad;
  console.log(
    `${route.name.padEnd(36)}${result.requests.average.toFixed(0).padStart(9)}${result.latency.p50.toFixed(1).padStart(9)}${result.latency.p99.toFixed(1).padStart(9)}  ${bad}`,
  );
}
const growth = (rssEnd - rssStart) / rssStart;
console.log(
  `\nRSS ${rssStart.toFixed(0)} MB at start, ${rssEnd.toFixed(0)} MB at end (${(growth * 100).toFixed(1)} %); errors ${errors}; load ${soakLoad.toFixed(2)} at the end`,
);
await app.close();
process.exit(errors === 0 && growth <= 0.1 ? 0 : 1);
