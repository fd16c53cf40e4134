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

  it('records a tunnel the proxy refuses as connect_failed', async () => {
    // Another port: another origin, so no kept-alive tunnel from an earlier test is reused.
    const hook = await createWebhook(t.deps, accountId, {
      url: 'https://receiver.test:8443/hook',
      events: ['recording.completed'],
    });
    proxy.refuseWith = 403;
    try {
      await recordTestEvent(t, accountId);
      await dispatchDue(t);
      expect(await deliverDue(t.deps)).toBe(1);
      expect(proxy.connects.at(-1)).toBe('93.184.216.34:8443');
      expect((await lastAttempt(hook.id)).error).toMatchObject({ code: 'connect_failed' });
    } finally {
      proxy.refuseWith = null;
      await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
    }
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

describe('mutual TLS per webhook', () => {
  let strict: TlsReceiver;
  let local: TestApp;
  let localKey: string;
  const loopback: HostLookup = async () => ['127.0.0.1'];

  beforeAll(async () => {
    strict = await startTlsReceiver({ requireClientCert: true });
    // Private URLs allowed so the direct path can reach loopback; the pinned path is the same as in production.
    local = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    Object.assign(local.deps, { lookup: loopback, trustedCa: tlsFixtures.ca });
    localKey = (await local.newAccount()).key;
  });
  afterAll(async () => {
    await local.close();
    await strict.close();
  });

  const create = (app: TestApp, apiKey: string, json: Record<string, unknown>) =>
    app.request({ method: 'POST', url: '/v1/webhooks', key: apiKey, json: { events: ['recording.completed'], ...json } });
  const ping = async (app: TestApp, apiKey: string, id: string) =>
    (await app.request({ method: 'POST', url: `/v1/webhooks/${id}/test`, key: apiKey })).json();

  it('is refused by a receiver that requires a client certificate until the webhook has one, then accepted', async () => {
    const url = `https://receiver.test:${strict.port}/hook`;
    const created = await create(local, localKey, { url });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({ has_tls_client_certificate: false });
    const id = created.json().id as string;
    const refused = await ping(local, localKey, id);
    expect(JSON.stringify(refused)).toMatch(/connect_failed|network_error/);
    expect(strict.requests).toHaveLength(0);

    const patched = await local.request({
      method: 'PATCH',
      url: `/v1/webhooks/${id}`,
      key: localKey,
      json: { tls_client_certificate: tlsFixtures.clientCert, tls_client_key: tlsFixtures.clientKey },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ has_tls_client_certificate: true });
    await ping(local, localKey, id);
    expect(strict.requests.at(-1)).toMatchObject({ path: '/hook', clientCn: 'voicename webhook client' });
  });

  it('keeps the key encrypted in the row and never returns the certificate or the key', async () => {
    const created = await create(local, localKey, {
      url: `https://receiver.test:${strict.port}/other`,
      tls_client_certificate: tlsFixtures.clientCert,
      tls_client_key: tlsFixtures.clientKey,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const keyBody = tlsFixtures.clientKey.split('\n')[1]!;
    const certBody = tlsFixtures.clientCert.split('\n')[1]!;
    const shown = [
      created.body,
      (await local.request({ method: 'GET', url: `/v1/webhooks/${id}`, key: localKey })).body,
      (await local.request({ method: 'GET', url: '/v1/webhooks', key: localKey })).body,
    ].join('\n');
    expect(shown).not.toContain(keyBody);
    expect(shown).not.toContain(certBody);
    expect(shown).not.toContain('PRIVATE KEY');
    const row = await local.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.tls_client_key_sealed).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(keyBody);
    expect(JSON.stringify(row)).not.toContain('PRIVATE KEY');
  });

  it('refuses an expired certificate, a key of another certificate, one without the other and plain http', async () => {
    const url = `https://receiver.test:${strict.port}/hook`;
    const cases: Array<[Record<string, unknown>, string]> = [
      [
        { url, tls_client_certificate: tlsFixtures.expiredClientCert, tls_client_key: tlsFixtures.clientKey },
        'tls_client_certificate',
      ],
      [{ url, tls_client_certificate: tlsFixtures.clientCert, tls_client_key: tlsFixtures.serverKey }, 'tls_client_key'],
      [{ url, tls_client_certificate: tlsFixtures.clientCert }, 'tls_client_key'],
      [{ url, tls_client_certificate: 'not a certificate', tls_client_key: tlsFixtures.clientKey }, 'tls_client_certificate'],
      [
        { url: 'http://127.0.0.1:9/hook', tls_client_certificate: tlsFixtures.clientCert, tls_client_key: tlsFixtures.clientKey },
        'tls_client_certificate',
      ],
    ];
    for (const [body, param] of cases) {
      const res = await create(local, localKey, body);
      expect(res.statusCode, param).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param, type: 'invalid_request_error' });
    }
  });

  it('presents the client certificate through the egress proxy too', async () => {
    proxy.routeTo = strict.port;
    try {
      const hook = await createWebhook(t.deps, accountId, {
        url: 'https://receiver.test/mtls',
        events: ['recording.completed'],
        tls_client_certificate: tlsFixtures.clientCert,
        tls_client_key: tlsFixtures.clientKey,
      });
      proxy.connects.length = 0;
      await recordTestEvent(t, accountId);
      await dispatchDue(t);
      expect(await deliverDue(t.deps)).toBe(1);
      expect(proxy.connects).toEqual(['93.184.216.34:443']);
      expect(strict.requests.at(-1)).toMatchObject({
        path: '/mtls',
        host: 'receiver.test',
        clientCn: 'voicename webhook client',
      });
      await t.request({ method: 'DELETE', url: `/v1/webhooks/${hook.id}`, key });
    } finally {
      proxy.routeTo = receiver.port;
    }
  });
});
