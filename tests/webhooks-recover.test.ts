import { Voicename } from '@voicename/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryRunner, webhookTasks } from '../src/features/webhooks/jobs.js';
import { enableWebhook } from '../src/features/webhooks/service.js';
import { ManualClock } from '../src/lib/clock.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverAll, dispatchDue, recordingData, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp & { url: string };
let clock: ManualClock;
let receiver: Receiver;
let key: string;
let accountId: string;

beforeAll(async () => {
  clock = new ManualClock(new Date());
  t = await startTestServer({
    clock,
    // One send at a time per webhook, so the order the receiver sees is the order of sending.
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: '1' },
  });
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
// Each test's webhooks go with it, so the next test's events reach only its own.
const created: { id: string; key: string }[] = [];
afterEach(async () => {
  for (const hook of created.splice(0)) await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key: hook.key });
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200 });
});

async function createHook(k = key) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key: k,
    json: { url: `${receiver.url}/hook`, events: ['recording.completed', 'recording.deleted'] },
  });
  expect(res.statusCode).toBe(201);
  const hook = res.json<{ id: string }>();
  created.push({ id: hook.id, key: k });
  return hook;
}

const deliveriesOf = (id: string) =>
  t.deps.db.kysely.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).orderBy('created_at').execute();

/** Records `count` events a millisecond apart, each fanned out as it happens. */
async function recordEvents(count: number, type = 'recording.completed') {
  for (let i = 0; i < count; i++) {
    await recordTestEvent(t, accountId, type, recordingData(i));
    await dispatchDue(t);
    clock.advance(1);
  }
}

/** Lets every pending delivery use all its automatic attempts, re-enabling the webhook whenever ten failures disable it. */
async function exhaustRetries(hookId: string) {
  for (let round = 0; round < 40; round++) {
    const pending = (await deliveriesOf(hookId)).filter((d) => d.status === 'pending');
    if (pending.length === 0) return;
    const webhook = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', hookId).executeTakeFirstOrThrow();
    if (webhook.status === 'disabled') await enableWebhook(t.deps, null, hookId);
    await deliverAll(t.deps);
    clock.advance(25 * 3600e3);
  }
  throw new Error('retries did not end');
}

const recover = (hookId: string, json: Record<string, unknown>, k = key) =>
  t.request({ method: 'POST', url: `/v1/webhooks/${hookId}/recover`, key: k, json });

describe('recovering failed messages after an outage', () => {
  it('sends exactly the messages that failed since T, in event order, once each, with their original webhook-ids', async () => {
    const hook = await createHook();
    await recordEvents(1);
    expect(await deliverAll(t.deps)).toBe(1); // delivered before the outage: not sent again
    clock.advance(1000);
    const since = clock.now().toISOString();

    receiver.respond = () => ({ status: 500 });
    const down = 4;
    await recordEvents(down);
    await exhaustRetries(hook.id);
    const failed = (await deliveriesOf(hook.id)).filter((d) => d.status === 'failed');
    expect(failed).toHaveLength(down);

    receiver.respond = () => ({ status: 200 });
    receiver.requests.length = 0;
    const first = await recover(hook.id, { since });
    expect(first.statusCode).toBe(202);
    expect(first.json()).toEqual({ queued: down });
    // A second recovery while the first is still pending queues nothing more.
    expect((await recover(hook.id, { since })).json()).toEqual({ queued: 0 });

    // A disabled webhook's recovered messages wait for it to be re-enabled.
    const webhook = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    if (webhook.status === 'disabled') await enableWebhook(t.deps, null, hook.id);
    expect(await deliverAll(t.deps)).toBe(down);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual(failed.map((d) => d.id));
    expect((await deliveriesOf(hook.id)).every((d) => d.status === 'succeeded')).toBe(true);
    clock.advance(48 * 3600e3);
    expect(await deliverAll(t.deps)).toBe(0);
    expect(receiver.requests).toHaveLength(down);
  });

  it('recovers only the range [since, until)', async () => {
    const hook = await createHook();
    receiver.respond = () => ({ status: 500 });
    await recordEvents(2);
    const until = clock.now().toISOString();
    await recordEvents(2);
    await exhaustRetries(hook.id);
    const failed = await deliveriesOf(hook.id);
    receiver.respond = () => ({ status: 200 });
    receiver.requests.length = 0;
    const since = failed[0]!.created_at;
    expect((await recover(hook.id, { since, until })).json()).toEqual({ queued: 2 });
    await enableWebhook(t.deps, null, hook.id);
    await deliverAll(t.deps);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual(failed.slice(0, 2).map((d) => d.id));
  });

  it('rejects a missing or malformed since, since not before until, and a range beyond the retention (400); another account’s webhook is 404', async () => {
    const hook = await createHook();
    const now = clock.now().getTime();
    const bad = [
      {},
      { since: '2026-01-01' },
      { since: 'yesterday' },
      { since: new Date(now - 1000).toISOString(), until: new Date(now - 2000).toISOString() },
      { since: new Date(now + 60_000).toISOString() },
      { since: new Date(now - 31 * 86_400_000).toISOString() },
      { since: new Date(now - 1000).toISOString(), extra: true },
    ];
    for (const json of bad) {
      const res = await recover(hook.id, json);
      expect(res.statusCode, JSON.stringify(json)).toBe(400);
      expect(res.json().error.type).toBe('invalid_request_error');
    }
    const other = await t.newAccount();
    const res = await recover(hook.id, { since: new Date(now - 1000).toISOString() }, other.key);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('resource_missing');
  });
});

describe('replaying one message', () => {
  it('sends a succeeded message again as a new attempt with the same webhook-id', async () => {
    const hook = await createHook();
    await recordEvents(1);
    await deliverAll(t.deps);
    const [message] = await deliveriesOf(hook.id);
    const res = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/messages/${message!.id}/replay`, key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: message!.id, status: 'succeeded', attempt_count: 2 });
    expect(res.json().attempts.map((a: { trigger: string }) => a.trigger)).toEqual(['automatic', 'manual']);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([message!.id, message!.id]);
    expect(receiver.requests[1]!.body).toBe(receiver.requests[0]!.body);

    const other = await t.newAccount();
    const hidden = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.id}/messages/${message!.id}/replay`,
      key: other.key,
    });
    expect(hidden.statusCode).toBe(404);
    const missing = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.id}/messages/whd_${'0'.repeat(32)}/replay`,
      key,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 'resource_missing', param: 'message_id' });
  });
});

describe('listing messages', () => {
  it('filters by status, event type and creation time, and pages with the cursor', async () => {
    const hook = await createHook();
    await recordEvents(3);
    const middle = clock.now().toISOString();
    await recordEvents(2, 'recording.deleted');
    await deliverAll(t.deps);
    receiver.respond = () => ({ status: 500 });
    await recordEvents(1);
    await deliverAll(t.deps);
    const all = (await deliveriesOf(hook.id)).reverse(); // newest first, as listed
    const list = async (query: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/messages?${query}`, key });
      expect(res.statusCode, query).toBe(200);
      return res.json<{ data: { id: string; status: string; event: string }[]; has_more: boolean; next_cursor: string | null }>();
    };
    expect((await list('')).data.map((m) => m.id)).toEqual(all.map((d) => d.id));
    expect((await list('status=pending')).data.map((m) => m.id)).toEqual([all[0]!.id]);
    expect((await list('event_type=recording.deleted')).data.map((m) => m.id)).toEqual([all[1]!.id, all[2]!.id]);
    expect((await list(`since=${encodeURIComponent(middle)}&status=succeeded`)).data).toHaveLength(2);
    expect((await list(`until=${encodeURIComponent(middle)}`)).data.map((m) => m.id)).toEqual(all.slice(3).map((d) => d.id));

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`status=succeeded&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      pages.push(...page.data.map((m) => m.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toEqual(all.slice(1).map((d) => d.id));

    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/messages?status=lost`, key })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/messages?since=today`, key })).statusCode).toBe(400);
    // The deliveries listing is unchanged: it takes no filters.
    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries?status=failed`, key })).statusCode).toBe(
      400,
    );
  });
});

describe('the SDK', () => {
  it('recovers, replays and lists messages', async () => {
    const hook = await createHook();
    receiver.respond = () => ({ status: 500 });
    const since = clock.now().toISOString();
    await recordEvents(1);
    await exhaustRetries(hook.id);
    receiver.respond = () => ({ status: 200 });
    const client = new Voicename({ apiKey: key, baseUrl: t.url });
    expect(await client.webhooks.recover(hook.id, { since })).toEqual({ queued: 1 });
    const [message] = await client.webhooks.messages(hook.id, { status: 'pending' }).toArray();
    expect(message?.webhook_id).toBe(hook.id);
    const replayed = await client.webhooks.replayMessage(hook.id, message!.id);
    expect(replayed).toMatchObject({ id: message!.id, status: 'succeeded' });
  });
});

describe('message history', () => {
  it('is kept 30 days by default: the hourly job deletes older messages, and recovery cannot reach back past that', async () => {
    expect(t.deps.config.webhooks.logRetentionDays).toBe(30);
    const hook = await createHook();
    receiver.respond = () => ({ status: 500 });
    const since = clock.now().toISOString();
    await recordEvents(1);
    await exhaustRetries(hook.id);
    expect(await deliveriesOf(hook.id)).toHaveLength(1);

    const purge = webhookTasks(t.deps, createDeliveryRunner(t.deps)).find((task) => task.name === 'webhooks.purge-logs')!;
    expect(purge.everyMs).toBe(3600e3);
    clock.advance(30 * 86_400_000);
    await purge.run();
    expect(await deliveriesOf(hook.id)).toHaveLength(0);
    const res = await recover(hook.id, { since });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'validation_failed', param: 'since' });
  });
});
