import { verifyWebhook } from '@voicename/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let key: string;
let accountId: string;
let collectionId: string;
const person = { email: 'aoife.byrne@example.com', first_name: 'Aoife', last_name: 'Byrne' };
let userId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Staff' } })).json().id;
  const user = await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users`, key, json: person });
  expect(user.statusCode).toBe(201);
  userId = user.json().id;
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
});

async function thinHook(events: string[]) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    json: { url: `${receiver.url}/thin`, events, payload: 'thin' },
  });
  expect(res.statusCode).toBe(201);
  expect(res.json()).toMatchObject({ kind: 'standard', payload: 'thin' });
  return res.json<{ id: string; secret: string }>();
}

/** The API path of an absolute URL of this service, to fetch with `inject`. */
const pathOf = (url: string) => {
  expect(url.startsWith(`${t.config.baseUrl}/v1/`)).toBe(true);
  return url.slice(t.config.baseUrl.length);
};

describe('thin events', () => {
  it('carry ids and the object’s URL, no personal data, signed both ways; the URL fetched with the key returns the person', async () => {
    const hook = await thinHook(['recording.completed']);
    const full = {
      collection_id: collectionId,
      user_id: userId,
      ...person,
      play_link: 'https://voicename.test/p/tok9',
      recorded_at: '2026-01-15T11:59:58.000Z',
    };
    const event = await recordTestEvent(t, accountId, 'recording.completed', full);
    await dispatchDue(t);
    expect(await deliverDue(t.deps)).toBe(1);
    const request = receiver.requests[0]!;

    const { event: body } = verifyWebhook({ secret: hook.secret, headers: request.headers, body: request.body });
    expect(request.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(request.body)).toEqual({
      event: 'recording.completed',
      timestamp: event.created_at,
      data: { collection_id: collectionId, user_id: userId },
      url: `${t.config.baseUrl}/v1/collections/${collectionId}/users/${userId}`,
    });
    for (const personal of [person.email, person.first_name, person.last_name, 'voicename.test/p/']) {
      expect(request.body).not.toContain(personal);
    }

    const fetched = await t.request({ method: 'GET', url: pathOf((body as unknown as { url: string }).url), key });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toMatchObject({ id: userId, email: person.email, first_name: 'Aoife', last_name: 'Byrne' });
    const anonymous = await t.request({ method: 'GET', url: pathOf((body as unknown as { url: string }).url) });
    expect(anonymous.statusCode).toBe(401);
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('of a deleted person and of the test event: ids only, no URL for what is gone, the webhook’s URL for the test', async () => {
    const hook = await thinHook(['user.deleted', 'invitation.failed']);
    await recordTestEvent(t, accountId, 'user.deleted', {
      collection_id: collectionId,
      user_id: userId,
      deleted_at: '2026-01-15T12:00:00.000Z',
    });
    await recordTestEvent(t, accountId, 'invitation.failed', {
      collection_id: collectionId,
      user_id: userId,
      email: person.email,
      kind: 'invitation',
      mail_id: 'mail_1',
      error: `550 No such mailbox ${person.email}`,
      failed_at: '2026-01-15T12:00:00.000Z',
    });
    await dispatchDue(t);
    await deliverDue(t.deps);
    const bodies = receiver.requests.map((r) => JSON.parse(r.body));
    expect(bodies.find((b) => b.event === 'user.deleted')).toMatchObject({
      data: { collection_id: collectionId, user_id: userId },
      url: null,
    });
    const failed = bodies.find((b) => b.event === 'invitation.failed');
    expect(failed.data).toEqual({ collection_id: collectionId, user_id: userId, mail_id: 'mail_1' });
    expect(JSON.stringify(bodies)).not.toContain(person.email);

    const test = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, key });
    expect(test.json()).toMatchObject({ status: 'succeeded' });
    const testBody = JSON.parse(receiver.requests.at(-1)!.body);
    expect(testBody).toMatchObject({
      event: 'webhook.test',
      data: { webhook_id: hook.id },
      url: `${t.config.baseUrl}/v1/webhooks/${hook.id}`,
    });
    expect((await t.request({ method: 'GET', url: pathOf(testBody.url), key })).json()).toMatchObject({
      id: hook.id,
      payload: 'thin',
    });
  });

  it('a webhook switched to thin and back sends each format from then on', async () => {
    const created = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: `${receiver.url}/switch`, events: ['user.updated'] },
    });
    const id = created.json().id;
    const patched = await t.request({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, json: { payload: 'thin' } });
    expect(patched.json()).toMatchObject({ payload: 'thin' });
    await recordTestEvent(t, accountId, 'user.updated', {
      collection_id: collectionId,
      user_id: userId,
      external_id: 'S1042',
      changed_fields: ['first_name'],
      updated_by: 'person',
      updated_at: '2026-01-15T12:00:00.000Z',
    });
    await dispatchDue(t);
    await deliverDue(t.deps);
    // The customer's own external_id may be personal (an e-mail address, a name): it is left out too.
    expect(JSON.parse(receiver.requests[0]!.body).data).toEqual({ collection_id: collectionId, user_id: userId });
    const bad = await t.request({ method: 'PATCH', url: `/v1/webhooks/${id}`, key, json: { payload: 'slim' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('parameter_invalid');
  });
});
