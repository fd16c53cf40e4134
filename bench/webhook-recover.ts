/**
 * `npm run bench -- webhook-recover`: `POST /v1/webhooks/{id}/recover` over 10,000 failed
 * messages (the service call, batched), against a baseline of one raw UPDATE of the same rows.
 * Per round both are timed with the event loop's longest stall (monitorEventLoopDelay, and the
 * longest stall while the main thread was busy); medians of BENCH_ROUNDS (default 5)
 * interleaved rounds. The recovery must not hold the loop longer than 50 ms.
 * SQLite by default; DATABASE_URL=postgres://… runs it on PostgreSQL.
 */
import { recoverFailedMessages } from '../src/features/webhooks/messages-service.js';
import { newId } from '../src/lib/ids.js';
import { createTestApp } from '../tests/helpers/app.js';
import { measureStalls } from '../tests/helpers/loop-stalls.js';
import { accountIdOf } from '../tests/helpers/webhooks.js';
import { benchRounds, loadAverage, median } from './lib.js';

const MESSAGES = 10_000;
const STALL_BUDGET_MS = 50;

const t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
const db = t.deps.db.kysely;
const account = await t.newAccount();
const accountId = await accountIdOf(t, account.email);
const created = await t.request({
  method: 'POST',
  url: '/v1/webhooks',
  key: account.key,
  json: { url: 'http://127.0.0.1:9/hook', events: ['recording.completed'] },
});
const webhookId = created.json<{ id: string }>().id;
// Disabled, so no worker sends what the rounds queue.
await db.updateTable('webhooks').set({ status: 'disabled' }).where('id', '=', webhookId).execute();

const start = Date.now() - 3600_000;
const rows = Array.from({ length: MESSAGES }, (_, i) => {
  const at = new Date(start + i * 100).toISOString();
  return {
    id: `whd_${newId().replace(/-/g, '')}`,
    webhook_id: webhookId,
    event_id: `evt_${newId().replace(/-/g, '')}`,
    event_type: 'recording.completed',
    payload: '{"event":"recording.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{}}',
    trigger: 'event' as const,
    status: 'failed' as const,
    attempt_count: 10,
    next_attempt_at: null,
    locked_by: null,
    locked_until: null,
    created_at: at,
    updated_at: at,
  };
});
for (let i = 0; i < rows.length; i += 500)
  await db
    .insertInto('webhook_deliveries')
    .values(rows.slice(i, i + 500))
    .execute();

const resetToFailed = () =>
  db
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null })
    .where('webhook_id', '=', webhookId)
    .execute();
const since = new Date(start - 1000).toISOString();
const now = new Date().toISOString();

const recover = { ms: [] as number[], stall: [] as number[], busy: [] as number[] };
const raw = { ms: [] as number[], stall: [] as number[], busy: [] as number[] };
const rounds = benchRounds();
for (let round = 0; round < rounds; round++) {
  await resetToFailed();
  const r = await measureStalls(() => recoverFailedMessages(t.deps, accountId, webhookId, { since }));
  if (r.result.queued !== MESSAGES) throw new Error(`queued ${r.result.queued}, expected ${MESSAGES}`);
  recover.ms.push(r.elapsedMs);
  recover.stall.push(r.maxDelayMs);
  recover.busy.push(r.maxBusyStallMs);

  await resetToFailed();
  const b = await measureStalls(() =>
    db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', attempt_count: 0, next_attempt_at: now, updated_at: now })
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'failed')
      .executeTakeFirst(),
  );
  raw.ms.push(b.elapsedMs);
  raw.stall.push(b.maxDelayMs);
  raw.busy.push(b.maxBusyStallMs);
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const worstBusy = median(recover.busy);
console.log(
  `${t.deps.db.dialect}, ${MESSAGES.toLocaleString('en')} failed messages, median of ${rounds} interleaved rounds (load ${loadAverage().toFixed(2)}):\n` +
    `  recover (batches of 500): ${ms(median(recover.ms))}, longest loop delay ${ms(median(recover.stall))}, longest busy stall ${ms(worstBusy)}\n` +
    `  raw UPDATE (one statement): ${ms(median(raw.ms))}, longest loop delay ${ms(median(raw.stall))}, longest busy stall ${ms(median(raw.busy))}\n` +
    `  ${worstBusy <= STALL_BUDGET_MS ? 'PASS' : 'OVER'}: recovery stall within ${STALL_BUDGET_MS} ms`,
);
await t.close();
