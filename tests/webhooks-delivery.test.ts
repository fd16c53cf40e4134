import { createHmac } from 'node:crypto';
import { verifyWebhook } from '@voicename/sdk';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_AUTOMATIC_ATTEMPTS, RETRY_DELAYS_MS } from '../src/features/webhooks/delivery.js';
import { claimDueDeliveries } from '../src/features/webhooks/repo.js';
import { purgeWebhookLogs } from '../src/features/webhooks/deliveries-service.js';
import { enableWebhook } from '../src/features/webhooks/service.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverAll, deliverDue, dispatchDue, recordingData, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let clock: ManualClock;
let receiver: Receiver;
let key: string;
let accountId: string;

beforeAll(async () => {
  clock = new ManualClock(new Date());
  t = await createTestApp({
    clock,
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_CLAIM_LEASE_MS: '5000' },
  });
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200 });
});

async function createHook(events: string[] = ['recording.completed'], path = '/hook', k = key) {
  const res = await t.request({ method: 'POST', url: '/v1/webhooks', key: k, json: { url: `${receiver.url}${path}`, events } });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: string; secret: string }>();
}

const deleteHook = (id: string) => t.request({ method: 'DELETE', url: `/v1/webhooks/${id}`, key });
const webhookRow = (id: string) =>
  t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const deliveriesOf = (id: string) =>
  t.deps.db.kysely.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).orderBy('created_at').execute();

describe('delivering recording.completed', () => {
  it('sends the exact spec body, signed for the standardwebhooks library and for an independent HMAC check', async () => {
    const hook = await createHook();
    const data = recordingData(7);
    const event = await recordTestEvent(t, accountId, 'recording.completed', data);
    expect(await dispatchDue(t)).toBe(1);
    expect(await deliverDue(t.deps)).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    const req = receiver.requests[0]!;

    expect(req.method).toBe('POST');
    expect(req.path).toBe('/hook');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toBe(JSON.stringify({ event: 'recording.completed', timestamp: event.created_at, data }));
    expect(Object.keys(JSON.parse(req.body).data)).toEqual([
      'collection_id',
      'user_id',
      'email',
      'first_name',
      'last_name',
      'play_link',
      'recorded_at',
    ]);

    // Independent check of the spec header: lowercase hex HMAC-SHA256, key = the secret's UTF-8 bytes.
    const expected = createHmac('sha256', hook.secret).update(req.body).digest('hex');
    expect(req.headers['x-service-signature']).toBe(expected);
    expect(req.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);

    // Standard Webhooks, verified by the reference library.
    const headers = {
      'webhook-id': String(req.headers['webhook-id']),
      'webhook-timestamp': String(req.headers['webhook-timestamp']),
      'webhook-signature': String(req.headers['webhook-signature']),
    };
    expect(new StandardWebhook(hook.secret).verify(req.body, headers)).toEqual(JSON.parse(req.body));
    expect(() => new StandardWebhook(hook.secret).verify(`${req.body} `, headers)).toThrow();

    // And by our exported helper.
    expect(verifyWebhook({ secret: hook.secret, headers: req.headers, body: req.body }).event.data).toEqual(data);
    expect(() => verifyWebhook({ secret: `${hook.secret}x`, headers: req.headers, body: req.body })).toThrow();
    await deleteHook(hook.id);
  });

  it('fans out to matching webhooks only (kind, *, other accounts), once per webhook', async () => {
    const completed = await createHook(['recording.completed'], '/completed');
    const deleted = await createHook(['recording.deleted'], '/deleted');
    const all = await createHook(['*'], '/all');
    const other = await t.newAccount();
    await createHook(['*'], '/stranger', other.key);

    await recordTestEvent(t, accountId, 'recording.deleted', recordingData(2));
    expect(await dispatchDue(t)).toBe(1);
    await deliverDue(t.deps);
    expect(receiver.requests.map((r) => r.path).sort()).toEqual(['/all', '/deleted']);
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(body.event).toBe('recording.deleted');
    expect(body.data).toEqual(recordingData(2));
    for (const id of [completed.id, deleted.id, all.id]) await deleteHook(id);
  });

  it('sends a re-recording as a new event with its own id', async () => {
    const hook = await createHook();
    await recordTestEvent(t, accountId);
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    expect(receiver.requests).toHaveLength(2);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(2);
    await deleteHook(hook.id);
  });
});

describe('which webhooks hear of an event', () => {
  it('sends an event only to the webhooks that existed when it happened, however late it is fanned out', async () => {
    const before = await createHook();
    const event = await recordTestEvent(t, accountId, 'recording.completed', recordingData(11));
    // The fan-out job runs after the event's transaction, here after a webhook registered a moment later.
    clock.advance(1000);
    const after = await createHook();
    expect(await dispatchDue(t)).toBe(1);
    expect((await deliveriesOf(before.id)).map((d) => d.event_id)).toContain(event.id);
    expect(await deliveriesOf(after.id)).toEqual([]);
    // What happens once it exists reaches it.
    const next = await recordTestEvent(t, accountId, 'recording.completed', recordingData(12));
    expect(await dispatchDue(t)).toBe(1);
    expect((await deliveriesOf(after.id)).map((d) => d.event_id)).toEqual([next.id]);
    await deliverAll(t.deps);
    await deleteHook(before.id);
    await deleteHook(after.id);
  });
});

describe('retries and auto-disable (injected clock)', () => {
  it('follows the schedule, keeps body and webhook-id, and fails the delivery after 10 attempts', async () => {
    receiver.respond = () => ({ status: 500, body: 'boom' });
    const hook = await createHook();
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue(t.deps)).toBe(1); // attempt 1, immediately
    for (let attempt = 2; attempt <= MAX_AUTOMATIC_ATTEMPTS; attempt++) {
      const delay = RETRY_DELAYS_MS[attempt - 1]!;
      clock.advance(delay - 1);
      expect(await deliverDue(t.deps), `attempt ${attempt} not before ${delay} ms`).toBe(0);
      clock.advance(1);
      expect(await deliverDue(t.deps), `attempt ${attempt} at ${delay} ms`).toBe(1);
    }
    expect(RETRY_DELAYS_MS).toEqual([0, 30e3, 120e3, 600e3, 1800e3, 3600e3, 3 * 3600e3, 6 * 3600e3, 12 * 3600e3, 24 * 3600e3]);
    expect(receiver.requests).toHaveLength(10);
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    clock.advance(48 * 3600e3);
    expect(await deliverDue(t.deps)).toBe(0);

    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery?.status).toBe('failed');
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.data[0].attempts).toHaveLength(10);
    expect(list.data[0].attempts[0]).toMatchObject({
      attempt: 1,
      trigger: 'automatic',
      response_status: 500,
      response_body: 'boom',
      error: { code: 'http_status' },
    });
    // Ten failed attempts in a row: the webhook is disabled.
    expect((await webhookRow(hook.id)).status).toBe('disabled');
    await deleteHook(hook.id);
  });

  it('disables on the 10th consecutive failure (not the 9th), keeps pending deliveries, and resumes them on re-enable', async () => {
    receiver.respond = () => ({ status: 503 });
    const hook = await createHook();
    for (let i = 0; i < 9; i++) await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));
    await dispatchDue(t);
    expect(await deliverAll(t.deps)).toBe(9);
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(9);
    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}`, key })).json().status).toBe('enabled');

    await recordTestEvent(t, accountId, 'recording.completed', recordingData(10));
    await dispatchDue(t);
    expect(await deliverDue(t.deps)).toBe(1);
    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}`, key })).json().status).toBe('disabled');

    // Disabled: nothing is sent, new events still get (pending) deliveries.
    await recordTestEvent(t, accountId, 'recording.completed', recordingData(11));
    await dispatchDue(t);
    clock.advance(3600e3);
    expect(await deliverDue(t.deps)).toBe(0);
    const pending = (await deliveriesOf(hook.id)).filter((d) => d.status === 'pending');
    expect(pending).toHaveLength(11);

    receiver.respond = () => ({ status: 204 });
    receiver.requests.length = 0;
    const enabled = await enableWebhook(t.deps, null, hook.id);
    expect(enabled.status).toBe('enabled');
    expect(await deliverAll(t.deps)).toBe(11);
    expect(receiver.requests).toHaveLength(11);
    expect((await deliveriesOf(hook.id)).every((d) => d.status === 'succeeded')).toBe(true);
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(0);
    await deleteHook(hook.id);
  });

  it('re-enabling sends the waiting deliveries at once, oldest first, and the API shows why it was disabled', async () => {
    receiver.respond = () => ({ status: 503 });
    const hook = await createHook();
    for (let i = 0; i < 10; i++) {
      await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));
      // Fanned out as it happens, as the worker does: each delivery is created at its own time
      // (fanned out together they would share one, and the order among them would be the ids').
      await dispatchDue(t);
      clock.advance(1);
    }
    expect(await deliverAll(t.deps)).toBe(10);
    const disabledAt = (await webhookRow(hook.id)).disabled_at;
    expect(disabledAt).not.toBeNull();
    const shown = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}`, key })).json();
    expect(shown).toMatchObject({
      status: 'disabled',
      consecutive_failures: 10,
      disabled_at: disabledAt,
      disabled_reason: 'consecutive_failures',
    });
    const listed = (await t.request({ method: 'GET', url: '/v1/webhooks', key })).json();
    expect(listed.data.find((w: { id: string }) => w.id === hook.id)).toMatchObject({ consecutive_failures: 10 });

    // Every delivery is 30 s into its back-off; re-enabling makes them due now.
    const order = (await deliveriesOf(hook.id)).map((d) => d.id);
    receiver.respond = () => ({ status: 204 });
    receiver.requests.length = 0;
    const enabled = await enableWebhook(t.deps, accountId, hook.id);
    expect(enabled).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_at: null, disabled_reason: null });
    const passes: string[][] = [];
    for (let sent = receiver.requests.length; (await deliverDue(t.deps)) > 0; sent = receiver.requests.length) {
      passes.push(receiver.requests.slice(sent).map((r) => String(r.headers['webhook-id'])));
    }
    // The per-webhook cap at a time (WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK, 8 by default), in the order the events happened.
    const cap = t.deps.config.webhooks.maxInFlightPerWebhook;
    expect(passes.map((p) => p.length)).toEqual([cap, 10 - cap]);
    expect(passes.flatMap((p) => [...p].sort((a, b) => order.indexOf(a) - order.indexOf(b)))).toEqual(order);
    expect((await deliveriesOf(hook.id)).every((d) => d.status === 'succeeded')).toBe(true);
    await deleteHook(hook.id);
  });

  it('resets the failure streak on any success', async () => {
    let fail = true;
    receiver.respond = () => ({ status: fail ? 500 : 200 });
    const hook = await createHook();
    for (let i = 0; i < 9; i++) await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));
    await dispatchDue(t);
    await deliverAll(t.deps);
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(9);
    fail = false;
    clock.advance(30e3);
    await deliverAll(t.deps); // the nine retries succeed
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(0);
    fail = true;
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    expect(await webhookRow(hook.id)).toMatchObject({ consecutive_failures: 1, status: 'enabled' });
    await deleteHook(hook.id);
  });

  it('numbers the attempts of deliveries claimed together, in the header and the log, manual ones included', async () => {
    let status = 500;
    receiver.respond = () => ({ status });
    const hook = await createHook();
    for (let i = 0; i < 3; i++) await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));
    await dispatchDue(t);
    await deliverDue(t.deps);
    clock.advance(30e3);
    await deliverDue(t.deps); // the three retries, claimed in one batch
    status = 200;
    const [first] = await deliveriesOf(hook.id);
    const redelivered = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.id}/deliveries/${first!.id}/redeliver`,
      key,
    });
    expect(redelivered.statusCode).toBe(200);
    const attemptsOf = (id: string) =>
      receiver.requests.filter((r) => r.headers['webhook-id'] === id).map((r) => r.headers['x-service-delivery-attempt']);
    for (const delivery of await deliveriesOf(hook.id))
      expect(attemptsOf(delivery.id)).toEqual(delivery.id === first!.id ? ['1', '2', '3'] : ['1', '2']);
    expect(redelivered.json().attempts.map((a: { attempt: number }) => a.attempt)).toEqual([1, 2, 3]);
    await deleteHook(hook.id);
  });

  it('counts a redirect as a failure and never follows it', async () => {
    receiver.respond = (r) =>
      r.path === '/moved' ? { status: 308, headers: { location: `${receiver.url}/target` } } : { status: 200 };
    const hook = await createHook(['recording.completed'], '/moved');
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    expect(receiver.requests.map((r) => r.path)).toEqual(['/moved']);
    const [delivery] = await deliveriesOf(hook.id);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(1);
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.data[0].attempts[0]).toMatchObject({ response_status: 308, error: { code: 'redirect' } });
    await deleteHook(hook.id);
  });

  it('counts a slow receiver (no 2xx within the timeout) as a failure', async () => {
    receiver.respond = () => ({ status: 200, delayMs: 1500 });
    const hook = await createHook();
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.data[0]).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(list.data[0].attempts[0]).toMatchObject({ response_status: null, error: { code: 'timeout' } });
    expect(list.data[0].attempts[0].duration_ms).toBeGreaterThanOrEqual(900);
    expect((await webhookRow(hook.id)).consecutive_failures).toBe(1);
    await deleteHook(hook.id);
  });

  it('releases the claim of a worker that died, after the lease', async () => {
    const hook = await createHook();
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    const now = clock.now();
    const claimed = await claimDueDeliveries(t.deps.db.kysely, t.deps.db.dialect, {
      workerId: 'dead-worker',
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 5000).toISOString(),
      limit: 10,
      maxPerWebhook: 2,
      maxPerAccount: 10,
    });
    expect(claimed).toHaveLength(1);
    expect(await deliverDue(t.deps)).toBe(0);
    clock.advance(4999);
    expect(await deliverDue(t.deps)).toBe(0);
    clock.advance(2);
    expect(await deliverDue(t.deps)).toBe(1);
    expect(receiver.requests).toHaveLength(1);
    expect((await deliveriesOf(hook.id))[0]?.status).toBe('succeeded');
    await deleteHook(hook.id);
  });
});

describe('secret rotation', () => {
  it('signs with both secrets for 24 h, then with the new one only', async () => {
    clock.set(new Date()); // the reference library checks timestamps against the real time
    const hook = await createHook();
    const rotated = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/rotate-secret`, key });
    expect(rotated.statusCode).toBe(200);
    const next = rotated.json().secret as string;
    expect(next).toMatch(/^whsec_/);
    expect(next).not.toBe(hook.secret);

    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    const during = receiver.requests[0]!;
    const hmac = (secret: string) => createHmac('sha256', secret).update(during.body).digest('hex');
    expect(during.headers['x-service-signature']).toBe(hmac(hook.secret));
    expect(during.headers['x-service-signature-next']).toBe(hmac(next));
    const std = (h: typeof during.headers) => ({
      'webhook-id': String(h['webhook-id']),
      'webhook-timestamp': String(h['webhook-timestamp']),
      'webhook-signature': String(h['webhook-signature']),
    });
    expect(() => new StandardWebhook(hook.secret).verify(during.body, std(during.headers))).not.toThrow();
    expect(() => new StandardWebhook(next).verify(during.body, std(during.headers))).not.toThrow();
    expect(verifyWebhook({ secret: next, headers: during.headers, body: during.body, now: clock.now() }).id).toBe(
      during.headers['webhook-id'],
    );

    clock.advance(24 * 3600e3 + 1);
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    const after = receiver.requests[1]!;
    expect(after.headers['x-service-signature']).toBe(createHmac('sha256', next).update(after.body).digest('hex'));
    expect(after.headers['x-service-signature-next']).toBeUndefined();
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await deleteHook(hook.id);
  });
});

describe('retention', () => {
  it('purges delivery logs and events older than WEBHOOK_LOG_RETENTION_DAYS (30)', async () => {
    const hook = await createHook();
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    const [old] = await deliveriesOf(hook.id);
    clock.advance(29 * 86_400_000);
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    clock.advance(1 * 86_400_000 + 1);
    const purged = await purgeWebhookLogs(t.deps);
    expect(purged.deliveries).toBeGreaterThanOrEqual(1);
    const left = await deliveriesOf(hook.id);
    expect(left).toHaveLength(1);
    expect(left[0]?.id).not.toBe(old?.id);
    const attempts = await t.deps.db.kysely.selectFrom('webhook_attempts').select('delivery_id').execute();
    expect(attempts.filter((a) => a.delivery_id === old?.id)).toHaveLength(0);
    expect(attempts.filter((a) => a.delivery_id === left[0]?.id)).toHaveLength(1);
    const oldEvents = await t.deps.db.kysely
      .selectFrom('events')
      .select('id')
      .where('created_at', '<', new Date(clock.now().getTime() - 30 * 86_400_000).toISOString())
      .execute();
    expect(oldEvents).toHaveLength(0);
    await deleteHook(hook.id);
  });
});
