/**
 * Guides for a 10,000-person import are made in the background without holding the service:
 * the worker makes every guide (the real speech engine, in its worker thread) while `/healthz`
 * keeps answering over a real connection and no stall of the main thread passes 50 ms. A timing
 * test: it runs last and alone (the `timing` project).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { measureStalls } from './helpers/loop-stalls.js';

const PEOPLE = 10_000;
const MAX_STALL_MS = 50;

let t: TestApp & { url: string };
let key: string;

beforeAll(async () => {
  t = await startTestServer({ contractCheck: false });
  ({ key } = await t.newAccount('timing-guides@example.com'));
}, 60_000);
afterAll(() => t.close());

it('makes the guides of a 10,000-person import in the background, never holding the loop over 50 ms', async () => {
  const collection = await fetch(`${t.url}/v1/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Graduation' }),
  }).then((res) => res.json() as Promise<{ id: string }>);
  const given = ['Siobhan', 'Aoife', 'Joaquín', 'Nguyễn', 'Mary', 'Oluwaseun', 'Krzysztof', 'Ngaio'];
  const csv = `email,first_name,last_name\n${Array.from(
    { length: PEOPLE },
    (_, i) => `p${i}@example.com,${given[i % given.length]},Family${i}`,
  ).join('\n')}\n`;
  const imported = await fetch(`${t.url}/v1/collections/${collection.id}/users/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: csv,
  });
  expect(imported.status, await imported.clone().text()).toBe(200);

  let probing = true;
  let slowestHealthzMs = 0;
  const probe = (async () => {
    while (probing) {
      const started = performance.now();
      const res = await fetch(`${t.url}/healthz`);
      await res.arrayBuffer();
      slowestHealthzMs = Math.max(slowestHealthzMs, performance.now() - started);
    }
  })();
  const worker = createWorker(t.deps);
  const stalls = await measureStalls(async () => {
    let ran = 0;
    for (let step = await worker.runDue(); step > 0; step = await worker.runDue()) ran += step;
    return ran;
  });
  probing = false;
  await probe;

  const { count } = await t.deps.db.kysely
    .selectFrom('pronunciations')
    .innerJoin('users', 'users.id', 'pronunciations.user_id')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('users.collection_id', '=', collection.id)
    .executeTakeFirstOrThrow();
  expect(Number(count)).toBe(PEOPLE);
  expect(stalls.maxBusyStallMs, JSON.stringify({ ...stalls, result: undefined, slowestHealthzMs })).toBeLessThan(MAX_STALL_MS);
}, 300_000);
