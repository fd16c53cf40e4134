/**
 * Webhook delivery benchmark (loopback only, bounded): `npx tsx bench/webhooks.ts [N]`.
 * - Baseline: N signed POSTs straight through the outbound client (no database), same concurrency.
 * - Throughput: N events recorded up front, then one in-process worker delivers them all
 *   (dispatch job + delivery engine): deliveries per second, and the ratio to the baseline.
 * - Lag: events recorded one by one at a steady rate while the worker runs; time from the
 *   event's commit to its first attempt reaching the receiver, p50/p99.
 * SQLite by default; set DATABASE_URL=postgres://… to measure PostgreSQL.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { withTransaction } from '../src/db/transaction.js';
import { createDeps } from '../src/deps.js';
import { findAccountByEmail } from '../src/features/accounts/repo.js';
import { createApiKey } from '../src/features/api-keys/service.js';
import { recordEvent } from '../src/features/events/service.js';
import { createWebhook } from '../src/features/webhooks/service.js';
import { signatureHeaders } from '../src/features/webhooks/signing.js';
import { sendOutbound } from '../src/integrations/outbound-http.js';
import { createWorker } from '../src/jobs/registry.js';
import { createTestDatabase } from '../tests/helpers/database.js';

const N = Number(process.argv[2] ?? 500);
const LAG_EVENTS = Math.min(200, N);
const LAG_RATE_PER_S = 50;

const arrivals = new Map<string, number>();
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString();
    const key = JSON.parse(body).data?.user_id as string | undefined;
    if (key && !arrivals.has(key)) arrivals.set(key, performance.now());
    res.writeHead(200).end('ok');
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

const database = await createTestDatabase();
const config = loadConfig({
  NODE_ENV: 'production',
  PAYMENTS_SANDBOX: 'true',
  MAIL_TRANSPORT: 'log',
  LOG_LEVEL: 'warn',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  DATA_DIR: '/tmp/voicename-bench',
});
config.database = database.config;
const deps = createDeps(config, { db: database.db });
const concurrency = config.webhooks.concurrency;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};
const until = async (done: () => boolean, timeoutMs: number) => {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('benchmark timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
};
const data = (key: string) => ({
  collection_id: 'c',
  user_id: key,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  play_link: 'https://voicename.test/p/x',
  recorded_at: new Date().toISOString(),
});

// Baseline: the HTTP client alone.
let baselinePerS: number;
{
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < N) {
        const i = next++;
        const body = JSON.stringify({
          event: 'recording.completed',
          timestamp: new Date().toISOString(),
          data: data(`base-${i}`),
        });
        const headers = signatureHeaders({ current: secret, previous: null }, { id: `b${i}`, timestampSeconds: 1, body });
        await sendOutbound({ url, headers: { 'content-type': 'application/json', ...headers }, body, allowPrivate: true });
      }
    }),
  );
  baselinePerS = N / ((performance.now() - started) / 1000);
}

const { account } = await createApiKey(deps, { accountEmail: 'bench@example.com' });
const accountId = (await findAccountByEmail(deps.db.kysely, account))!.id;
await createWebhook(deps, accountId, { url, events: ['recording.completed'] });
// As the recordings feature does: the event in a transaction, which wakes this process's worker after the commit.
const record = (key: string) =>
  withTransaction(deps, (tx) => recordEvent(tx, { accountId, type: 'recording.completed', data: data(key), at: new Date() }));

// Throughput: a backlog of N events, one worker.
for (let i = 0; i < N; i++) await record(`tp-${i}`);
const worker = createWorker(deps);
const tpStart = performance.now();
worker.start();
await until(() => [...arrivals.keys()].filter((k) => k.startsWith('tp-')).length >= N, 120_000);
const tpSeconds = (performance.now() - tpStart) / 1000;
const perS = N / tpSeconds;

// Lag: steady arrivals while the worker runs.
const committed = new Map<string, number>();
for (let i = 0; i < LAG_EVENTS; i++) {
  await record(`lag-${i}`);
  committed.set(`lag-${i}`, performance.now());
  await new Promise((r) => setTimeout(r, 1000 / LAG_RATE_PER_S));
}
await until(() => [...committed.keys()].every((k) => arrivals.has(k)), 60_000);
const lags = [...committed].map(([k, at]) => arrivals.get(k)! - at);

await worker.stop();
server.close();
await database.drop();

const f = (n: number) => n.toFixed(1);
console.log(
  `webhooks benchmark: ${database.config.dialect}, N=${N}, concurrency ${concurrency}, job poll 500 ms, delivery poll ${config.webhooks.pollMs} ms`,
);
console.log(`baseline (outbound client only):  ${f(baselinePerS)} requests/s`);
console.log(`one worker, backlog of ${N}:        ${f(perS)} deliveries/s  (${f((perS / baselinePerS) * 100)}% of baseline)`);
console.log(
  `lag commit → first attempt (${LAG_EVENTS} events at ${LAG_RATE_PER_S}/s): p50 ${f(percentile(lags, 50))} ms, p99 ${f(percentile(lags, 99))} ms, max ${f(Math.max(...lags))} ms`,
);
process.exit(0);
