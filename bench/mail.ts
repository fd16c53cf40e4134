/**
 * Mail throughput to a local SMTP server (smtp-server on loopback), in one process:
 * - baseline: nodemailer's pooled transport sending the same number of ready-made messages at
 *   once (what a script with no queue, status or retries would do);
 * - voicename unthrottled (`MAIL_RATE_PER_MINUTE=0`): `POST …/invitations` for N people through
 *   the service, then the mail sender drains the queue (claim with a lease, compose text + HTML
 *   in the collection's language, send, record the status and an `invitation.sent` event);
 * - voicename at the default throttle (120 a minute) for BENCH_THROTTLED_SECONDS.
 * SQLite by default; PostgreSQL when DATABASE_URL is set.
 * Run: npm run bench -- mail (BENCH_MAILS=500)
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { closeDeps, createDeps, type Deps } from '../src/deps.js';
import { createCollection } from '../src/features/collections/service.js';
import { MessageSender } from '../src/features/invitations/sender.js';
import { queueInvitations } from '../src/features/invitations/service.js';
import { createUsers } from '../src/features/users/create-service.js';
import { benchAccount } from './lib.js';

const N = Number(process.env.BENCH_MAILS ?? 500);
const THROTTLED_SECONDS = Number(process.env.BENCH_THROTTLED_SECONDS ?? 15);

let received = 0;
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      received += 1;
      callback();
    });
  },
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const smtpUrl = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;

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

// Baseline: the same number of messages straight through a pooled nodemailer transport.
const transport = nodemailer.createTransport({ url: smtpUrl, pool: true, maxConnections: 3 } as Parameters<
  typeof nodemailer.createTransport
>[0]);
let started = performance.now();
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
const baseline = N / ((performance.now() - started) / 1000);
transport.close();

// voicename, unthrottled.
const fast = await app(0);
received = 0;
started = performance.now();
await queueInvitations(fast.deps, fast.accountId, fast.collectionId, { filter: 'not_recorded' });
const queuedMs = performance.now() - started;
await new MessageSender(fast.deps, 'bench').kick();
const unthrottled = N / ((performance.now() - started) / 1000);
if (received !== N) throw new Error(`expected ${N} messages, received ${received}`);
await closeDeps(fast.deps);
fs.rmSync(fast.dataDir, { recursive: true, force: true });

// voicename at the default throttle, for a fixed time.
const slow = await app(120);
received = 0;
await queueInvitations(slow.deps, slow.accountId, slow.collectionId, { filter: 'not_recorded' });
const sender = new MessageSender(slow.deps, 'bench-throttled');
started = performance.now();
const deadline = started + THROTTLED_SECONDS * 1000;
while (performance.now() < deadline) {
  await sender.pass();
  await new Promise((resolve) => setTimeout(resolve, 50));
}
const throttled = received / ((performance.now() - started) / 1000);
await closeDeps(slow.deps);
fs.rmSync(slow.dataDir, { recursive: true, force: true });
await new Promise<void>((resolve) => server.close(() => resolve()));

console.log(
  `mail to a local SMTP server, ${N} messages (node ${process.version}, ${os.cpus().length} cpus, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'})`,
);
console.log('| sender | messages/s | ratio to baseline |\n|---|---|---|');
console.log(`| nodemailer pool, ready-made messages (baseline) | ${baseline.toFixed(0)} | 1.00 |`);
console.log(
  `| voicename, MAIL_RATE_PER_MINUTE=0 (queue ${queuedMs.toFixed(0)} ms, then send) | ${unthrottled.toFixed(0)} | ${(unthrottled / baseline).toFixed(2)} |`,
);
console.log(
  `| voicename, default MAIL_RATE_PER_MINUTE=120, over ${THROTTLED_SECONDS} s | ${throttled.toFixed(2)} | ${(throttled / baseline).toFixed(4)} |`,
);
