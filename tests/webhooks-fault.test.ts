/**
 * Fault tolerance with real processes: `src/worker.ts` workers (as `npm run worker` starts
 * them) against the test database; one is killed with SIGKILL while it is sending. Every
 * event must still be delivered (at least once), and no delivery may be sent by two workers
 * at the same time. Also the operator CLI `webhooks enable`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runCliCaptured } from './helpers/cli.js';
import { usingPostgres } from './helpers/database.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, recordingData, recordTestEvent } from './helpers/webhooks.js';

const EVENTS = 30;
let t: TestApp;
let receiver: Receiver;
let key: string;
let accountId: string;
let dataDir: string;
const children: ChildProcess[] = [];

const childEnv = () => ({
  ...process.env,
  ...t.database.env,
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  // vitest exports BASE_URL=/ (Vite's), which is not a valid setting for the service.
  BASE_URL: 'http://localhost:3000',
  SITE_URL: 'http://localhost:3000',
  DATA_DIR: dataDir,
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  // Long enough that the first worker's held sends are still open when it is killed, even when a
  // busy machine is slow to deliver the kill: a send that timed out first would wait 30 s to retry.
  WEBHOOK_TIMEOUT_MS: '5000',
  WEBHOOK_CLAIM_LEASE_MS: '6000',
  WEBHOOK_POLL_MS: '50',
  WEBHOOK_CONCURRENCY: '5',
});

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: childEnv(),
    cwd: process.cwd(),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk) => process.stderr.write(`[worker ${child.pid}] ${chunk}`));
  children.push(child);
  return child;
}

async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-fault-'));
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  // Every answer takes a while, so a worker is always caught mid-send when it is killed.
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver.close();
  await t.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// SQLite serialises writers across processes (WAL + busy timeout), so two workers are safe there too.
describe(`worker processes (${usingPostgres() ? 'PostgreSQL, SKIP LOCKED' : 'SQLite, serialised writers'})`, () => {
  it('delivers every event after a worker is SIGKILLed mid-send; two workers never send one delivery at once', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: `${receiver.url}/fault`, events: ['*'] },
    });
    const hookId = res.json().id as string;
    for (let i = 0; i < EVENTS; i++) await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));

    // The first worker's sends are held unanswered, so it is killed mid-send for certain.
    receiver.respond = () => ({ status: 200, delayMs: 60_000 });
    const first = startWorker();
    await waitUntil(() => receiver.requests.length >= 3, 30_000, 'sends in flight');
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const inFlight = receiver.requests.map((r) => String(r.headers['webhook-id']));
    expect(inFlight.length).toBeGreaterThanOrEqual(3);
    receiver.respond = () => ({ status: 200, delayMs: 250 });

    startWorker();
    startWorker();
    const deliveries = () =>
      t.deps.db.kysely.selectFrom('webhook_deliveries').select(['id', 'status']).where('webhook_id', '=', hookId).execute();
    await waitUntil(
      async () => {
        const rows = await deliveries();
        return rows.length === EVENTS && rows.every((d) => d.status === 'succeeded');
      },
      90_000,
      'every delivery to succeed',
    );

    // Every event reached the receiver at least once.
    const users = new Set(receiver.requests.map((r) => JSON.parse(r.body).data.user_id));
    expect(users.size).toBe(EVENTS);
    // What was in flight at the kill was sent again, after the lease, and succeeded.
    for (const id of inFlight)
      expect(receiver.requests.filter((r) => r.headers['webhook-id'] === id).length).toBeGreaterThanOrEqual(2);
    // No two sends of one delivery overlapped in time.
    const byId = new Map<string, Array<{ start: number; end: number }>>();
    for (const r of receiver.requests) {
      const id = String(r.headers['webhook-id']);
      byId.set(id, [...(byId.get(id) ?? []), { start: r.startedAt, end: r.endedAt ?? Number.POSITIVE_INFINITY }]);
    }
    for (const [id, sends] of byId) {
      sends.sort((a, b) => a.start - b.start);
      for (let i = 1; i < sends.length; i++)
        expect(sends[i]!.start, `overlapping sends of ${id}`).toBeGreaterThanOrEqual(sends[i - 1]!.end);
    }
    // Duplicates only come from the killed worker's in-flight sends.
    expect(receiver.requests.length).toBeLessThanOrEqual(EVENTS + inFlight.length);
  }, 150_000);
});

describe('CLI', () => {
  it('`webhooks enable <id>` re-enables a disabled webhook', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: `${receiver.url}/cli`, events: ['*'] },
    });
    const id = res.json().id as string;
    await t.deps.db.kysely
      .updateTable('webhooks')
      .set({ status: 'disabled', consecutive_failures: 10, disabled_reason: 'consecutive_failures' })
      .where('id', '=', id)
      .execute();
    // In-process: tests/cli.test.ts covers the real CLI process once.
    const enabled = await runCliCaptured(childEnv(), ['webhooks', 'enable', id, '--json']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(JSON.parse(enabled.stdout)).toMatchObject({ id, status: 'enabled' });
    const row = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_reason: null });

    const missing = await runCliCaptured(childEnv(), ['webhooks', 'enable', 'wh_nope']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No such webhook');
  }, 60_000);
});
