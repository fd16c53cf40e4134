/**
 * Outbound safety with WEBHOOK_ALLOW_PRIVATE_URLS off (the production default): private,
 * loopback, link-local and metadata targets are refused at registration and again at send,
 * whatever the spelling, and a host name that resolves to loopback is refused too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook } from '../src/features/webhooks/service.js';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let key: string;
let accountId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
  receiver = await startReceiver();
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

/** Every spelling points at the live receiver's port: a missing check would let the request land. */
const forbiddenHosts = [
  '127.0.0.1',
  '0x7f.1',
  '2130706433',
  '127.1',
  '0177.0.0.1',
  '[::1]',
  '[0:0:0:0:0:0:0:1]',
  '[::ffff:127.0.0.1]',
  '[::7f00:1]',
  '[::5efe:7f00:1]',
  '[64:ff9b::7f00:1]',
  '[2002:7f00:1::1]',
  '169.254.169.254',
  '[::ffff:169.254.169.254]',
  '[fd00:ec2::254]',
  '10.0.0.1',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1',
  '100.64.0.1',
  '[fc00::1]',
  '[fe80::1]',
  '0.0.0.0',
  '224.0.0.1',
  'localhost',
  'api.localhost',
];

const urlFor = (host: string) => `https://${host}:${receiver.port}/hook`;
const publicLookup: HostLookup = async () => ['93.184.216.34'];
const loopbackLookup: HostLookup = async () => ['127.0.0.1'];

describe('at registration', () => {
  it.each(forbiddenHosts)('refuses https://%s', async (host) => {
    const res = await t.request({ method: 'POST', url: '/v1/webhooks', key, json: { url: urlFor(host), events: ['*'] } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'url_not_public', param: 'url', type: 'invalid_request_error' });
  });

  it('refuses a host name whose DNS answer is 127.0.0.1', async () => {
    await expect(
      createWebhook({ ...t.deps, lookup: loopbackLookup }, accountId, { url: 'https://hooks.customer.test/x', events: ['*'] }),
    ).rejects.toMatchObject({ code: 'url_not_public', status: 400 });
  });

  it('refuses plain http when private URLs are not allowed', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: 'http://93.184.216.34/x', events: ['*'] },
    });
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    expect(res.json().error.message).toContain('https');
  });

  it('refuses the same addresses when a webhook URL is changed', async () => {
    const hook = await createWebhook({ ...t.deps, lookup: publicLookup }, accountId, {
      url: 'https://hooks.customer.test/x',
      events: ['*'],
    });
    const res = await t.request({
      method: 'PATCH',
      url: `/v1/webhooks/${hook.id}`,
      key,
      json: { url: urlFor('[::ffff:7f00:1]') },
    });
    expect(res.json().error).toMatchObject({ code: 'url_not_public', param: 'url' });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });
});

describe('at send time', () => {
  it.each(forbiddenHosts)('refuses to deliver to https://%s (URL changed behind the check)', async (host) => {
    const hook = await createWebhook({ ...t.deps, lookup: publicLookup }, accountId, {
      url: 'https://hooks.customer.test/x',
      events: ['recording.completed'],
    });
    // As if the row had been written before a rule change: the send-time check must hold on its own.
    await t.deps.db.kysely
      .updateTable('webhooks')
      .set({ url: urlFor(host) })
      .where('id', '=', hook.id)
      .execute();
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue(t.deps)).toBe(1);
    expect(receiver.requests).toHaveLength(0);
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.data[0].attempts[0]).toMatchObject({ response_status: null, error: { code: 'forbidden_address' } });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('refuses a name that resolved to a public address at registration and to 127.0.0.1 at send (rebinding)', async () => {
    const hook = await createWebhook({ ...t.deps, lookup: publicLookup }, accountId, {
      url: `https://rebind.customer.test:${receiver.port}/hook`,
      events: ['recording.completed'],
    });
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue({ ...t.deps, lookup: loopbackLookup })).toBe(1);
    expect(receiver.requests).toHaveLength(0);
    const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key })).json();
    expect(list.data[0].attempts[0].error).toMatchObject({ code: 'forbidden_address' });
    // The customer learns the address was refused, never how our resolver sees the name.
    expect(list.data[0].attempts[0].error.message).toContain('does not resolve to a public address');
    expect(list.data[0].attempts[0].error.message).not.toContain('127.0.0.1');
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('refuses a test ping to a private address too', async () => {
    const hook = await createWebhook({ ...t.deps, lookup: publicLookup }, accountId, {
      url: 'https://hooks.customer.test/x',
      events: ['*'],
    });
    await t.deps.db.kysely
      .updateTable('webhooks')
      .set({ url: urlFor('169.254.169.254') })
      .where('id', '=', hook.id)
      .execute();
    const res = await t.request({ method: 'POST', url: `/v1/webhooks/${hook.id}/test`, key });
    expect(res.json().attempts[0].error.code).toBe('forbidden_address');
    expect(receiver.requests).toHaveLength(0);
  });
});
