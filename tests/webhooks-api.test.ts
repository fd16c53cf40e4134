import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { authContract } from './helpers/auth-contract.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const create = (json: unknown, k = key) => t.request({ method: 'POST', url: '/v1/webhooks', key: k, json });
const hookUrl = (path = '/hook') => `${receiver.url}${path}`;

describe('POST /v1/webhooks', () => {
  it('registers a webhook and returns its secret once', async () => {
    const res = await create({ url: hookUrl(), events: ['recording.completed'], description: 'CRM sync' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'consecutive_failures',
        'created_at',
        'description',
        'disabled_at',
        'disabled_reason',
        'events',
        'has_tls_client_certificate',
        'id',
        'kind',
        'payload',
        'secret',
        'status',
        'updated_at',
        'url',
      ].sort(),
    );
    expect(body).toMatchObject({
      url: hookUrl(),
      events: ['recording.completed'],
      description: 'CRM sync',
      status: 'enabled',
      consecutive_failures: 0,
      kind: 'standard',
      payload: 'full',
      has_tls_client_certificate: false,
      disabled_at: null,
      disabled_reason: null,
    });
    expect(body.id).toMatch(/^wh_[0-9a-f]{32}$/);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(body.created_at).toMatch(ISO);
    expect(body.updated_at).toBe(body.created_at);

    const fetched = (await t.request({ method: 'GET', url: `/v1/webhooks/${body.id}`, key })).json();
    expect(fetched.secret).toBeUndefined();
    expect(fetched).toMatchObject({ id: body.id, description: 'CRM sync' });
  });

  it('defaults description to null and accepts every known kind and *', async () => {
    const res = await create({ url: hookUrl(), events: ['recording.completed', 'recording.deleted', '*'] });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ description: null, events: ['recording.completed', 'recording.deleted', '*'] });
  });

  it('refuses unknown event kinds, listing the allowed ones', async () => {
    const res = await create({ url: hookUrl(), events: ['recording.completed', 'user.created'] });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'events[1]', type: 'invalid_request_error' });
    expect(res.json().error.message).toContain(
      'recording.completed, recording.deleted, user.updated, pronunciation.updated, user.deleted, collection.erased, invitation.sent, invitation.failed, *',
    );
  });

  it('requires url and a non-empty events list', async () => {
    expect((await create({ events: ['*'] })).json().error).toMatchObject({ code: 'parameter_missing', param: 'url' });
    expect((await create({ url: hookUrl() })).json().error).toMatchObject({ code: 'parameter_missing', param: 'events' });
    expect((await create({ url: hookUrl(), events: [] })).json().error).toMatchObject({ param: 'events' });
    expect((await create({ url: hookUrl(), events: 'recording.completed' })).statusCode).toBe(400);
    expect((await create({ url: hookUrl(), events: ['*'], secret: 'mine' })).json().error).toMatchObject({
      code: 'parameter_unknown',
      param: 'secret',
    });
  });

  it('limits url to 2048 characters and description to 1000', async () => {
    const long = `${receiver.url}/${'a'.repeat(2048 - receiver.url.length - 1)}`;
    expect(long).toHaveLength(2048);
    expect((await create({ url: long, events: ['*'] })).statusCode).toBe(201);
    expect((await create({ url: `${long}a`, events: ['*'] })).json().error).toMatchObject({ param: 'url' });
    expect((await create({ url: hookUrl(), events: ['*'], description: 'd'.repeat(1000) })).statusCode).toBe(201);
    expect((await create({ url: hookUrl(), events: ['*'], description: 'd'.repeat(1001) })).json().error).toMatchObject({
      param: 'description',
    });
  });

  it('refuses URLs that are not URLs', async () => {
    for (const url of ['not a url', 'ftp://example.com/x', 'https://user:pw@example.com/x', '/relative']) {
      const res = await create({ url, events: ['*'] });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    }
  });
});

describe('list, update, delete', () => {
  it('pages webhooks newest first without repeats', async () => {
    const other = await t.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ url: hookUrl(`/p${i}`), events: ['*'] }, other.key)).json().id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.request({
        method: 'GET',
        url: `/v1/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        key: other.key,
      });
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(page.data.length).toBeLessThanOrEqual(2);
      for (const w of page.data) expect(w.secret).toBeUndefined();
      seen.push(...page.data.map((w: { id: string }) => w.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    // Ids are random, so rows created in the same millisecond have no insertion order: compare sets.
    expect(seen).toHaveLength(5);
    expect([...seen].sort()).toEqual([...ids].sort());
    expect((await t.request({ method: 'GET', url: '/v1/webhooks?limit=101', key })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: '/v1/webhooks?cursor=bogus!', key })).json().error.code).toBe('invalid_cursor');
  });

  it('updates url, events and description, and refuses a status change', async () => {
    const hook = (await create({ url: hookUrl(), events: ['*'] })).json();
    const res = await t.request({
      method: 'PATCH',
      url: `/v1/webhooks/${hook.id}`,
      key,
      json: { url: hookUrl('/v2'), events: ['recording.deleted'], description: 'new' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      url: hookUrl('/v2'),
      events: ['recording.deleted'],
      description: 'new',
      status: 'enabled',
    });
    expect(res.json().updated_at > hook.updated_at).toBe(true);
    const bad = await t.request({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, key, json: { events: ['nope'] } });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'events[0]' });
    const status = await t.request({ method: 'PATCH', url: `/v1/webhooks/${hook.id}`, key, json: { status: 'enabled' } });
    expect(status.json().error).toMatchObject({ code: 'parameter_unknown', param: 'status' });
  });

  it('deletes a webhook; it is gone afterwards', async () => {
    const hook = (await create({ url: hookUrl(), events: ['*'] })).json();
    const res = await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
    expect(res.json()).toEqual({ deleted: true, id: hook.id });
    expect((await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}`, key })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: '/v1/webhooks/wh_nope', key })).json().error.code).toBe('resource_missing');
  });
});

describe('POST /v1/webhooks/{id}/test and redelivery', () => {
  it('sends a signed webhook.test event now and returns the attempt result', async () => {
    const hook = (await create({ url: hookUrl('/test'), events: ['recording.completed'] })).json();
    receiver.respond = () => ({ status: 200, body: 'pong' });
    const res = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, key });
    expect(res.statusCode).toBe(200);
    const delivery = res.json();
    expect(delivery).toMatchObject({ event: 'webhook.test', status: 'succeeded', attempt_count: 1, next_attempt_at: null });
    expect(delivery.attempts[0]).toMatchObject({
      attempt: 1,
      trigger: 'test',
      response_status: 200,
      error: null,
      response_body: 'pong',
    });
    const req = receiver.requests.at(-1)!;
    expect(JSON.parse(req.body)).toMatchObject({ event: 'webhook.test', data: { webhook_id: hook.id } });
    expect(req.headers['x-service-signature']).toBe(createHmac('sha256', hook.secret).update(req.body).digest('hex'));
    expect(req.headers['webhook-id']).toBe(delivery.id);

    receiver.respond = () => ({ status: 500, body: 'x'.repeat(5000) });
    const failed = (await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, key })).json();
    expect(failed).toMatchObject({ status: 'failed', next_attempt_at: null });
    expect(failed.attempts[0]).toMatchObject({ response_status: 500, error: { code: 'http_status' } });
    expect(failed.attempts[0].response_body).toHaveLength(2048);
    receiver.respond = () => ({ status: 200 });
  });

  it('reports a receiver that cannot be reached', async () => {
    const hook = (await create({ url: 'http://127.0.0.1:9/closed', events: ['*'] })).json();
    const delivery = (await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, key })).json();
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0]).toMatchObject({ response_status: null, error: { code: 'connect_failed' } });
  });

  it('lists deliveries with their attempts and redelivers one with the same webhook-id', async () => {
    const hook = (await create({ url: hookUrl('/redeliver'), events: ['recording.completed'] })).json();
    receiver.respond = () => ({ status: 500 });
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    await deliverDue(t.deps);
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.has_more).toBe(false);
    expect(list.data).toHaveLength(1);
    const delivery = list.data[0];
    expect(delivery).toMatchObject({ event: 'recording.completed', status: 'pending', attempt_count: 1, webhook_id: hook.id });
    expect(delivery.event_id).toMatch(/^evt_/);
    expect(delivery.next_attempt_at).toMatch(ISO);
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, trigger: 'automatic', response_status: 500 });
    expect(delivery.attempts[0].attempted_at).toMatch(ISO);

    receiver.respond = () => ({ status: 202 });
    const res = await t.request({
      method: 'POST',
      url: `/v1/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`,
      key,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: delivery.id, status: 'succeeded', attempt_count: 2, next_attempt_at: null });
    expect(res.json().attempts[1]).toMatchObject({ attempt: 2, trigger: 'manual', response_status: 202, error: null });
    const sent = receiver.requests.filter((r) => r.path === '/redeliver');
    expect(sent).toHaveLength(2);
    expect(sent[0]!.headers['webhook-id']).toBe(sent[1]!.headers['webhook-id']);
    expect(sent[0]!.body).toBe(sent[1]!.body);

    const missing = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/deliveries/whd_nope/redeliver`, key });
    expect(missing.json().error).toMatchObject({ code: 'resource_missing', param: 'delivery_id' });
    receiver.respond = () => ({ status: 200 });
  });
});

describe('authentication', () => {
  let id = '';
  let deliveryId = '';
  beforeAll(async () => {
    id = (await create({ url: hookUrl(), events: ['*'] })).json().id;
    deliveryId = (await t.request({ method: 'POST', url: `/v1/webhooks/${id}/test`, key })).json().id;
  });
  authContract(() => ({
    t,
    routes: [
      { method: 'POST', url: '/v1/webhooks', json: { url: hookUrl(), events: ['*'] } },
      { method: 'GET', url: '/v1/webhooks' },
      { method: 'GET', url: `/v1/webhooks/${id}`, owned: true },
      { method: 'PATCH', url: `/v1/webhooks/${id}`, json: { description: 'x' }, owned: true },
      { method: 'POST', url: `/v1/webhooks/${id}/rotate-secret`, owned: true },
      { method: 'POST', url: `/v1/webhooks/${id}/test`, owned: true },
      { method: 'GET', url: `/v1/webhooks/${id}/deliveries`, owned: true },
      { method: 'POST', url: `/v1/webhooks/${id}/deliveries/${deliveryId}/redeliver`, owned: true },
      { method: 'DELETE', url: `/v1/webhooks/${id}`, owned: true },
    ],
  }));
});
