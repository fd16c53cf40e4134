/**
 * Mail throughput to a local SMTP server (smtp-server on loopback, in its own process:
 * bench/smtp-receiver.ts), BENCH_ROUNDS interleaved rounds (default 5) of:
 * - baseline: nodemailer's pooled transport sending the same number of ready-made messages at
 *   once (what a script with no queue, status or retries would do);
 * - voicename unthrottled (`MAIL_RATE_PER_MINUTE=0`): `POST …/invitations` for N people through
 *   the service, then the mail sender drains the queue (claim with a lease, compose text + HTML
 *   in the collection's language, send, record the status and an `invitation.sent` event).
 * Both senders run in this process: the medians of messages/s, the ratio, this process's CPU time
 * per message and the 1-minute load average are reported. Then, once (a rate, not a race):
 * voicename at the default throttle (120 a minute) for BENCH_THROTTLED_SECONDS.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 * Run: npm run bench -- mail (BENCH_MAILS=500)
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { closeDeps, createDeps, type Deps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { MessageSender } from '../src/features/invitations/sender.js';
import { queueInvitations } from '../src/features/invitations/service.js';
import { createUsers } from '../src/features/users/create-service.js';
import { benchAccount, benchRounds, cpuSecondsWithChildren, loadAverage, median } from './lib.js';

const N = Number(process.env.BENCH_MAILS ?? 500);
const THROTTLED_SECONDS = Number(process.env.BENCH_THROTTLED_SECONDS ?? 15);
const ROUNDS = benchRounds();

const receiver = fork(path.join(path.dirname(fileURLToPath(import.meta.url)), 'smtp-receiver.ts'), [], {
  execArgv: ['--import', 'tsx'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const nextMessage = <T>() => new Promise<T>((resolve) => receiver.once('message', (message) => resolve(message as T)));
const { port } = await nextMessage<{ port: number }>();
const smtpUrl = `smtp://127.0.0.1:${port}`;
/** Messages the receiver has accepted so far. */
async function receivedCount(): Promise<number> {
  const answer = nextMessage<{ received: number }>();
  receiver.send('count');
  return (await answer).received;
}

async function app(rate: number): Promise<{ deps: Deps; collectionId: string; accountId: string; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-mail-'));
  const deps = createDeps(
    loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      BASE_URL: 'http://127.0.0.1:3000',
      SMTP_URL: smtpUrl,
      MAIL_RATE_PER_MINUTE: String(rate),
      LOG_LEVEL: 'warn',
      ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
    }),
  );
  await migrateToLatest(deps.db);
  const { accountId } = await benchAccount(deps, `bench-mail-${Date.now()}-${rate}@example.com`);
  const collection = await createCollection(deps, accountId, { name: 'Graduation 2027', deadline: '2027-03-01' });
  for (let i = 0; i < N; i += 1000) {
    const people = Array.from({ length: Math.min(1000, N - i) }, (_, j) => ({
      email: `person${i + j}@example.com`,
      first_name: `Person${i + j}`,
      last_name: 'Ní Bhriain',
    }));
    await createUsers(deps, accountId, collection.id, people);
  }
  return { deps, collectionId: collection.id, accountId, dataDir };
}

interface Round {
  perSecond: number;
  cpuMsPerMessage: number;
  load: number;
}
/** Times `send` (which must deliver N messages) with this process's CPU time. */
async function round(send: () => Promise<unknown>): Promise<Round> {
  const before = await receivedCount();
  const cpuBefore = cpuSecondsWithChildren();
  const started = performance.now();
  await send();
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = (cpuSecondsWithChildren() - cpuBefore) * 1000;
  const received = (await receivedCount()) - before;
  if (received !== N) throw new Error(`expected ${N} messages, received ${received}`);
  return { perSecond: N / seconds, cpuMsPerMessage: cpuMs / N, load: loadAverage() };
}

// Baseline: the same number of messages straight through a pooled nodemailer transport.
async function bareSend(): Promise<void> {
  const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: 3 } as Parameters<
    typeof nodemailer.createTransport
  >[0]);
  await Promise.all(
    Array.from({ length: N }, (_, i) =>
      transport.sendMail({
        from: 'voicename <mail@voicename.test>',
        to: `person${i}@example.com`,
        subject: 'Graduation 2027: record how your name is said',
        text: 'Hello,\n\nPlease record how your name is said: http://127.0.0.1:3000/r/token\n',
        html: '<p>Hello,</p><p>Please record how your name is said: <a href="http://127.0.0.1:3000/r/token">link</a></p>',
      }),
    ),
  );
  transport.close();
}

const baselineRounds: Round[] = [];
const unthrottledRounds: Round[] = [];
const queuedMs: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  baselineRounds.push(await round(bareSend));
  // voicename, unthrottled: a fresh app each round (seeding is not timed).
  const fast = await app(0);
  unthrottledRounds.push(
    await round(async () => {
      const started = performance.now();
      await queueInvitations(fast.deps, fast.accountId, fast.collectionId, { filter: 'not_recorded' });
      queuedMs.push(performance.now() - started);
      await new MessageSender(fast.deps, 'bench').kick();
    }),
  );
  await closeDeps(fast.deps);
  fs.rmSync(fast.dataDir, { recursive: true, force: true });
}

// voicename at the default throttle, for a fixed time.
const slow = await app(120);
await queueInvitations(slow.deps, slow.accountId, slow.collectionId, { filter: 'not_recorded' });
const sender = new MessageSender(slow.deps, 'bench-throttled');
const receivedBefore = await receivedCount();
const started = performance.now();
const deadline = started + THROTTLED_SECONDS * 1000;
while (performance.now() < deadline) {
  await sender.pass();
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const throttled = ((await receivedCount()) - receivedBefore) / ((performance.now() - started) / 1000);
const throttledLoad = loadAverage();
await closeDeps(slow.deps);
fs.rmSync(slow.dataDir, { recursive: true, force: true });
receiver.disconnect();

const of = (rounds: Round[], pick: (round: Round) => number) => median(rounds.map(pick));
const baseline = of(baselineRounds, (r) => r.perSecond);
const row = (name: string, rounds: Round[]) => {
  const perSecond = of(rounds, (r) => r.perSecond);
  console.log(
    `| ${name} | ${perSecond.toFixed(0)} | ${(perSecond / baseline).toFixed(2)} | ${of(rounds, (r) => r.cpuMsPerMessage).toFixed(2)} | ${of(rounds, (r) => r.load).toFixed(2)} |`,
  );
};
console.log(
  `mail to a local SMTP server, ${N} messages (node ${process.version}, ${os.cpus().length} cpus, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`,
);
console.log(`medians of ${ROUNDS} interleaved rounds; cpu: this process (the sender), per message`);
console.log('| sender | messages/s | ratio to baseline | cpu ms/message | load 1m |\n|---|---|---|---|---|');
row('nodemailer pool, ready-made messages (baseline)', baselineRounds);
row(`voicename, MAIL_RATE_PER_MINUTE=0 (queue ${median(queuedMs).toFixed(0)} ms, then send)`, unthrottledRounds);
console.log(
  `| voicename, default MAIL_RATE_PER_MINUTE=120, over ${THROTTLED_SECONDS} s (one run) | ${throttled.toFixed(2)} | ${(throttled / baseline).toFixed(4)} | | ${throttledLoad.toFixed(2)} |`,
);
