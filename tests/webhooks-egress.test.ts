/**
 * OUTBOUND_PROXY_URL: customer-bound requests are tunnelled through the operator's proxy with
 * CONNECT to the address this service checked (never the name, which the proxy could resolve
 * again), TLS still verifies the receiver's name, and the SSRF rules still refuse private
 * destinations. Mutual TLS per webhook: the client certificate is presented to a receiver that
 * requires one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import { createWebhook } from '../src/features/webhooks/service.js';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type ConnectProxy, startConnectProxy, startTlsReceiver, type TlsReceiver, tlsFixtures } from './helpers/egress.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

const publicLookup: HostLookup = async (host) => (host === 'receiver.test' ? ['93.184.216.34'] : ['10.1.2.3']);

let proxy: ConnectProxy;
let receiver: TlsReceiver;
let t: TestApp;
let key: string;
let accountId: string;

beforeAll(async () => {
  receiver = await startTlsReceiver({ requireClientCert: false });
  proxy = await startConnectProxy(receiver.port);
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false', OUTBOUND_PROXY_URL: proxy.url } });
  Object.assign(t.deps, { lookup: publicLookup, trustedCa: tlsFixtures.ca });
  const account = await t.newAccount();
  key = account.key;
  accountId = await accountIdOf(t, account.email);
});
afterAll(async () => {
  await t.close();
  await proxy.close();
  await receiver.close();
});

async function lastAttempt(webhookId: string) {
  const list = (await t.request({ method: 'GET', url: `/v1/webhooks/${webhookId}/deliveries`, key })).json();
  return list.data[0].attempts[0];
}

describe('through the egress proxy', () => {
  it('delivers a webhook through a CONNECT tunnel to the checked address, with the name as Host and TLS name', async () => {
    const hook = await createWebhook(t.deps, accountId, { url: 'https://receiver.test/hook', events: ['recording.completed'] });
    proxy.connects.length = 0;
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue(t.deps)).toBe(1);
    expect(proxy.connects).toEqual(['93.184.216.34:443']);
    expect(receiver.requests.at(-1)).toMatchObject({ path: '/hook', host: 'receiver.test' });
    expect(await lastAttempt(hook.id)).toMatchObject({ response_status: 200, error: null });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('still refuses a name that resolves to a private address, without asking the proxy', async () => {
    const hook = await createWebhook(t.deps, accountId, { url: 'https://receiver.test/hook', events: ['recording.completed'] });
    proxy.connects.length = 0;
    const before = receiver.requests.length;
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue({ ...t.deps, lookup: async () => ['10.0.0.7'] })).toBe(1);
    expect(proxy.connects).toEqual([]);
    expect(receiver.requests).toHaveLength(before);
    expect((await lastAttempt(hook.id)).error).toMatchObject({ code: 'forbidden_address' });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('refuses a receiver whose certificate does not carry the name, even through the tunnel', async () => {
    const hook = await createWebhook({ ...t.deps, lookup: async () => ['93.184.216.34'] }, accountId, {
      url: 'https://other.test/hook',
      events: ['recording.completed'],
    });
    const before = receiver.requests.length;
    await recordTestEvent(t, accountId);
    await dispatchDue(t);
    expect(await deliverDue({ ...t.deps, lookup: async () => ['93.184.216.34'] })).toBe(1);
    expect(receiver.requests).toHaveLength(before);
    expect((await lastAttempt(hook.id)).error).toMatchObject({ code: 'connect_failed' });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
  });

  it('sends an agent callback through the proxy too', async () => {
    const callbackReceiver = await startReceiver();
    const callbackProxy = await startConnectProxy(callbackReceiver.port);
    const app = await createTestApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        OUTBOUND_PROXY_URL: callbackProxy.url,
        ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000',
      },
      overrides: fakeSpeech(),
    });
    try {
      const { paid } = await publishEntity(app, validBody({ callback_url: 'http://127.0.0.1:9/hooks/voicename' }));
      expect(paid.statusCode).toBe(200);
      expect(await createWorker(app.deps).runDue()).toBe(1);
      expect(callbackProxy.connects).toEqual(['127.0.0.1:9']);
      expect(callbackReceiver.requests).toHaveLength(1);
      expect(JSON.parse(callbackReceiver.requests[0]!.body)).toMatchObject({ event: 'entity.published' });
    } finally {
      await app.close();
      await callbackProxy.close();
      await callbackReceiver.close();
    }
  });
});
