/**
 * Exporting a collection of 10,000 people holds the event loop no longer than an import does:
 * while the CSV and the ZIP (with its people.csv) are built and streamed, `/healthz` keeps
 * answering and no stall exceeds 50 ms. A timing test: it runs last and alone (the `timing`
 * project), so other files' load cannot fail it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { measureStalls } from './helpers/loop-stalls.js';

const MAX_STALL_MS = 50;
const PEOPLE = 10_000;

let t: TestApp & { url: string };
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await startTestServer({ contractCheck: false });
  ({ key } = await t.newAccount('timing-export@example.com'));
  const created = await fetch(`${t.url}/v1/collections`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Timing export', custom_fields: [{ key: 'seat', label: 'Seat', type: 'number' }] }),
  });
  collectionId = ((await created.json()) as { id: string }).id;
  const rows = Array.from({ length: PEOPLE }, (_, i) => `person${i}@example.com,Person,"Number ${i}",${i}`).join('\n');
  const imported = await fetch(`${t.url}/v1/collections/${collectionId}/users/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: `email,first_name,last_name,Seat\n${rows}\n`,
  });
  expect(imported.status).toBe(200);
  // A process's first request of a route compiles its serializers (once): not what is measured here.
  for (const format of ['csv', 'zip']) await exportOf(format);
}, 120_000);
afterAll(() => t.close());

async function exportOf(format: string) {
  const res = await fetch(`${t.url}/v1/collections/${collectionId}/export?format=${format}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Runs `work` while measuring stalls and asking `/healthz`, one request after another. */
async function whileProbing<T>(work: () => Promise<T>) {
  let probing = true;
  let healthzAnswers = 0;
  const probe = (async () => {
    while (probing) {
      const res = await fetch(`${t.url}/healthz`);
      await res.arrayBuffer();
      healthzAnswers++;
    }
  })();
  try {
    return { ...(await measureStalls(work)), healthzAnswers };
  } finally {
    probing = false;
    await probe;
  }
}

describe('exporting 10,000 people', () => {
  it.each(['csv', 'zip'])('%s: every stall under 50 ms, /healthz answering meanwhile', { timeout: 120_000 }, async (format) => {
    const { result, maxBusyStallMs, maxDelayMs, elapsedMs, healthzAnswers } = await whileProbing(() => exportOf(format));
    console.info(`export ${format}`, { elapsedMs: Math.round(elapsedMs), maxBusyStallMs, maxDelayMs, healthzAnswers });
    expect(result.status).toBe(200);
    // The whole collection is in it: the CSV's rows, or the ZIP's people.csv (compressed) and its directory.
    if (format === 'csv') expect(result.bytes.toString('utf8').trimEnd().split('\n')).toHaveLength(PEOPLE + 1);
    else expect(result.bytes.includes(Buffer.from('people.csv'))).toBe(true);
    expect(healthzAnswers).toBeGreaterThan(0);
    expect(maxBusyStallMs).toBeLessThan(MAX_STALL_MS);
  });
});
