/**
 * Webhook delivery benchmark: `npm run bench -- webhooks` (SQLite; BENCH_ROUNDS, default 5;
 * BENCH_DELIVERIES per round, default 3000). Every part runs in its own process:
 * - the receivers (bench/webhook-receivers.ts): 10 fast receivers, then 1;
 * - the app: the built worker (`node scripts/start.mjs worker`, of BENCH_APP_ROOT if set, so the
 *   same bench can measure another checkout's build) delivering a backlog of events recorded
 *   up front through the services the API uses, one webhook per receiver, each in its own account;
 * - the baseline (bench/webhook-sender.ts): a bare signed sender, keep-alive, no database, with
 *   the worker's concurrency (WEBHOOK_CONCURRENCY overall, WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK per
 *   receiver; the bench sets both, from BENCH_CONCURRENCY and BENCH_PER_WEBHOOK).
 * BENCH_WORKER_PROFILE_DIR writes a V8 CPU profile of every worker round there.
 * Rounds alternate which side goes first. Per side: median deliveries/s (first to last arrival at
 * the receivers), the ratio, the sender process's CPU time per delivery over the same span, and
 * the 1-minute load average.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { withTransaction } from '../src/db/transaction.js';
import { createDeps } from '../src/deps.js';
import { recordEvent } from '../src/features/events/service.js';
import { createWebhook } from '../src/features/webhooks/service.js';
import { benchAccount, cpuSeconds, loadAverage, median } from './lib.js';
import { eventData } from './webhook-data.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
const APP_ROOT = process.env.BENCH_APP_ROOT ?? path.join(BENCH_DIR, '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 3000);
const CONCURRENCY = process.env.BENCH_CONCURRENCY ?? '32';
const PER_WEBHOOK = process.env.BENCH_PER_WEBHOOK ?? '8';
/** A directory for a V8 CPU profile of each worker round (`node --cpu-prof`), to see where a delivery's time goes. */
const PROFILE_DIR = process.env.BENCH_WORKER_PROFILE_DIR;

interface Round {
  perS: number;
  cpuMsPerDelivery: number;
  load: string;
}

// Children end with the bench, also when a round throws.
const children = new Set<ChildProcess>();
const track = (child: ChildProcess) => (children.add(child), child.once('exit', () => children.delete(child)), child);
process.on('exit', () => children.forEach((child) => child.kill('SIGTERM')));
process.on('unhandledRejection', (err) => {
  console.error(err);
  process.exit(1);
});

const exited = (child: ChildProcess) =>
  child.exitCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

async function startReceivers(count: number) {
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'webhook-receivers.ts')], {
      env: { ...process.env, RECEIVERS: String(count) },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  const line = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout! }).once('line', resolve));
  const urls = (JSON.parse(line) as number[]).map((port) => `http://127.0.0.1:${port}/hook`);
  const control = async (what: 'count' | 'reset') =>
    (await (await fetch(new URL(`/${what}`, urls[0]))).json()) as { count: number; spanMs: number };
  return {
    urls,
    control,
    async close() {
      child.kill('SIGTERM');
      await exited(child);
    },
  };
}

type Receivers = Awaited<ReturnType<typeof startReceivers>>;

/**
 * Waits until `total` POSTs arrived; the CPU time of `pid` is read at the first arrival and at the
 * last, so start-up (loading code, migrations, seeding) is not counted.
 */
async function watch(receivers: Receivers, pid: number, total: number): Promise<Round> {
  const deadline = Date.now() + 300_000;
  let from: { count: number; cpu: number } | null = null;
  for (;;) {
    if (Date.now() > deadline) throw new Error('benchmark round timed out');
    const { count, spanMs } = await receivers.control('count');
    if (from === null && count > 0) from = { count, cpu: cpuSeconds(pid) };
    if (count >= total) {
      const cpu = cpuSeconds(pid) - from!.cpu;
      return {
        perS: (count - 1) / (spanMs / 1000),
        cpuMsPerDelivery: (cpu * 1000) / (count - from!.count),
        load: loadAverage().toFixed(2),
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function baselineRound(receivers: Receivers): Promise<Round> {
  await receivers.control('reset');
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', path.join(BENCH_DIR, 'webhook-sender.ts')], {
      env: {
        ...process.env,
        SENDER_URLS: JSON.stringify(receivers.urls),
        SENDER_TOTAL: String(DELIVERIES),
        SENDER_CONCURRENCY: CONCURRENCY,
        SENDER_PER_RECEIVER: PER_WEBHOOK,
      },
      stdio: ['pipe', 'ignore', 'inherit'],
    }),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000)); // its modules loaded
  child.stdin!.write('go\n');
  const round = await watch(receivers, child.pid!, DELIVERIES);
  child.stdin!.end();
  await exited(child);
  return round;
}

const profileFlags = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];

async function appRound(receivers: Receivers): Promise<Round> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-hooks-'));
  const settings: Record<string, string> = {
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    BASE_URL: 'http://127.0.0.1:1',
    DATA_DIR: dataDir,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_CONCURRENCY: CONCURRENCY,
    WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: PER_WEBHOOK,
  };
  const deps = createDeps(loadConfig(settings));
  await migrateToLatest(deps.db);
  const accounts = await Promise.all(
    receivers.urls.map(async (url, i) => {
      const { accountId } = await benchAccount(deps, `bench-${i}@example.com`);
      await createWebhook(deps, accountId, { url, events: ['recording.completed'] });
      return accountId;
    }),
  );
  // The backlog, as the recordings feature records events: one dispatch job each; accounts take turns.
  await withTransaction(deps, async (tx) => {
    for (let i = 0; i < DELIVERIES; i++) {
      const accountId = accounts[i % accounts.length]!;
      await recordEvent(tx, { accountId, type: 'recording.completed', data: eventData(i), at: new Date() });
    }
  });
  await deps.db.close();
  await receivers.control('reset');
  const worker = track(
    spawn(process.execPath, [...profileFlags, path.join(APP_ROOT, 'scripts', 'start.mjs'), 'worker'], {
      env: { ...process.env, ...settings },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const round = await watch(receivers, worker.pid!, DELIVERIES);
  worker.kill('SIGTERM');
  await exited(worker);
  fs.rmSync(dataDir, { recursive: true, force: true });
  return round;
}

const f = (n: number, digits = 0) => n.toFixed(digits);
console.log(
  `webhooks benchmark: SQLite, ${DELIVERIES} deliveries a round, ${ROUNDS} interleaved rounds, WEBHOOK_CONCURRENCY=${CONCURRENCY}, ` +
    `WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK=${PER_WEBHOOK}, worker from ${path.relative(process.cwd(), APP_ROOT) || '.'}, ` +
    `${os.cpus().length} CPUs, Node ${process.version}`,
);
for (const count of [10, 1]) {
  const receivers = await startReceivers(count);
  const rounds: { baseline: Round; app: Round }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const app = i % 2 === 0 ? await appRound(receivers) : null;
    const baseline = await baselineRound(receivers);
    rounds.push({ baseline, app: app ?? (await appRound(receivers)) });
    const last = rounds.at(-1)!;
    console.log(
      `  ${count} receiver(s), round ${i + 1}: baseline ${f(last.baseline.perS)}/s (load ${last.baseline.load}), ` +
        `worker ${f(last.app.perS)}/s (load ${last.app.load})`,
    );
  }
  await receivers.close();
  const side = (pick: (r: { baseline: Round; app: Round }) => Round) => ({
    perS: median(rounds.map((r) => pick(r).perS)),
    cpu: median(rounds.map((r) => pick(r).cpuMsPerDelivery)),
  });
  const baseline = side((r) => r.baseline);
  const app = side((r) => r.app);
  console.log(
    `${count} receiver(s): bare signed sender ${f(baseline.perS)} deliveries/s, ${f(baseline.cpu, 3)} ms CPU/delivery; ` +
      `worker ${f(app.perS)} deliveries/s, ${f(app.cpu, 3)} ms CPU/delivery; ratio ${f(app.perS / baseline.perS, 2)} ` +
      `(medians of ${ROUNDS}; load ${loadAverage().toFixed(2)})`,
  );
}
process.exit(0);
