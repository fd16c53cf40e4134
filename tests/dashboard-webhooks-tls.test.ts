/**
 * Mutual TLS on the dashboard's webhook forms: the register and edit forms take a client
 * certificate and key through the same service as the API (has_tls_client_certificate then
 * true over the API), never write the key back into a page, show the service's refusals next to
 * the fields with nothing stored, keep, replace or remove the certificate on edit, say only
 * set/removed in the audit log, and are refused to viewers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';
import { tlsFixtures } from './helpers/egress.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let viewer: Browserish & { csrf: string };
let apiKey: string;
const OWNER = 'owner-tls@example.com';
/** Nothing listens there: these tests never deliver, they register. */
const HTTPS_URL = 'https://127.0.0.1:9/mtls';

/** The base64 body of the client key: what must never appear in a page or the audit log. */
const keyBody = tlsFixtures.clientKey
  .split('\n')
  .filter((line) => line !== '' && !line.startsWith('-----'))
  .join('');

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  owner = await signIn(t, OWNER, '203.0.113.1');
  viewer = await inviteAndJoin(t, owner, 'viewer-tls@example.com', 'viewer', '203.0.113.3');
  apiKey = (await t.newAccount(OWNER)).key;
});
afterAll(() => t?.close());

const form = (fields: Record<string, string>) => ({
  csrf: owner.csrf,
  url: HTTPS_URL,
  events: 'recording.completed',
  description: '',
  ...fields,
});
const pair = { tls_client_certificate: tlsFixtures.clientCert, tls_client_key: tlsFixtures.clientKey };
const idOf = (page: string) => /href="\/dashboard\/webhooks\/(wh_[0-9a-f]{32})"/.exec(page)?.[1] as string;
const overApi = async (id: string) =>
  (await t.request({ method: 'GET', url: `/v1/webhooks/${id}`, key: apiKey })).json<{ has_tls_client_certificate: boolean }>();
const webhookCount = async () => (await t.deps.db.kysely.selectFrom('webhooks').select('id').execute()).length;
const auditDetails = async (action: string, id: string) =>
  (
    await t.deps.db.kysely
      .selectFrom('audit_log')
      .select('detail')
      .where('action', '=', action)
      .where('object_id', '=', id)
      .execute()
  ).map((row) => (row.detail === null ? null : (JSON.parse(row.detail) as unknown)));

async function registerWithCertificate() {
  const res = await post(t, owner, '/dashboard/webhooks', form(pair));
  expect(res.statusCode).toBe(201);
  return { id: idOf(res.body), page: res.body };
}

describe('mutual TLS on the register form', () => {
  it('offers the certificate and key fields with what they are for', async () => {
    const page = (await get(t, owner, '/dashboard/webhooks/new')).body;
    expect(page).toContain('<legend>Mutual TLS <span class="muted">(optional)</span></legend>');
    expect(page).toMatch(/<textarea id="webhook-tls-certificate" name="tls_client_certificate" class="pem"/);
    expect(page).toMatch(/<textarea id="webhook-tls-key" name="tls_client_key" class="pem"[^>]*><\/textarea>/);
    expect(page).toContain('The key is stored encrypted and never shown again');
    expect(page).not.toContain('name="tls_remove"');
  });

  it('registers a webhook with a certificate pair: set over the API, the key in no page, the audit entry says only "set"', async () => {
    const { id, page } = await registerWithCertificate();
    expect((await overApi(id)).has_tls_client_certificate).toBe(true);
    expect(page).not.toContain(keyBody);
    for (const url of [`/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/edit`]) {
      const shown = (await get(t, owner, url)).body;
      expect(shown).not.toContain(keyBody);
      expect(shown).toContain('A client certificate is set');
    }
    const details = await auditDetails('webhook.created', id);
    expect(details).toEqual([{ tls_client_certificate: 'set' }]);
    expect(JSON.stringify(details)).not.toContain(keyBody);
  });

  it('takes a certificate followed by a long chain, past the 16 KiB other dashboard forms are limited to', async () => {
    const chain = tlsFixtures.clientCert + tlsFixtures.ca.repeat(30);
    expect(new URLSearchParams(form({ ...pair, tls_client_certificate: chain })).toString().length).toBeGreaterThan(16 * 1024);
    const res = await post(t, owner, '/dashboard/webhooks', form({ ...pair, tls_client_certificate: chain }));
    expect(res.statusCode).toBe(201);
    expect((await overApi(idOf(res.body))).has_tls_client_certificate).toBe(true);
  });

  it('shows a refused pair next to its field, keeps the certificate but never the key, and stores nothing', async () => {
    const before = await webhookCount();
    const refusals: [Record<string, string>, 'tls_client_certificate' | 'tls_client_key', string][] = [
      [
        { ...pair, tls_client_certificate: tlsFixtures.expiredClientCert },
        'tls_client_certificate',
        'The client certificate expired on',
      ],
      [
        { ...pair, tls_client_key: tlsFixtures.serverKey },
        'tls_client_key',
        'The client key does not belong to the client certificate.',
      ],
      [{ tls_client_certificate: tlsFixtures.clientCert }, 'tls_client_key', 'Give the client key together with its certificate'],
      [{ tls_client_key: tlsFixtures.clientKey }, 'tls_client_certificate', 'Give the client certificate together with its key'],
      [
        { ...pair, url: 'http://127.0.0.1:9/plain' },
        'tls_client_certificate',
        'A client certificate is used for https URLs only.',
      ],
    ];
    for (const [fields, field, message] of refusals) {
      const res = await post(t, owner, '/dashboard/webhooks', form(fields));
      expect(res.statusCode, message).toBe(400);
      expect(res.body).toContain(`<p class="error" id="${field}-error">${message}`);
      expect(res.body).toMatch(
        new RegExp(`name="${field}" class="pem"[^>]* aria-invalid="true" aria-describedby="${field}-error">`),
      );
      expect(res.body).not.toContain(keyBody);
      expect(res.body).not.toContain(tlsFixtures.serverKey.split('\n')[1]);
      expect(res.body).toMatch(/<textarea id="webhook-tls-key" name="tls_client_key"[^>]*><\/textarea>/);
      if (fields.tls_client_certificate) expect(res.body).toContain(`${fields.tls_client_certificate.trimEnd()}\n</textarea>`);
    }
    expect(await webhookCount()).toBe(before);
  });
});

describe('mutual TLS on the edit form', () => {
  it('keeps the certificate when both fields are empty, replaces it with a new pair, and removes it with Remove', async () => {
    const { id } = await registerWithCertificate();
    const edit = (await get(t, owner, `/dashboard/webhooks/${id}/edit`)).body;
    expect(edit).toContain('<strong>A client certificate is set.</strong>');
    expect(edit).toContain('<input type="checkbox" name="tls_remove" value="yes" id="webhook-tls-remove">');
    expect(edit).toContain('Replace: client certificate');

    const kept = await post(t, owner, `/dashboard/webhooks/${id}/edit`, form({ description: 'kept' }));
    expect(kept.statusCode).toBe(303);
    expect((await overApi(id)).has_tls_client_certificate).toBe(true);
    const stored = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    const replaced = await post(t, owner, `/dashboard/webhooks/${id}/edit`, form(pair));
    expect(replaced.statusCode).toBe(303);
    const after = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(after.tls_client_key_sealed).not.toBe(stored.tls_client_key_sealed);

    const both = await post(t, owner, `/dashboard/webhooks/${id}/edit`, form({ ...pair, tls_remove: 'yes' }));
    expect(both.statusCode).toBe(400);
    expect(both.body).toContain('id="tls_client_certificate-error">Either paste a new certificate and key, or tick Remove');
    expect(both.body).toContain('name="tls_remove" value="yes" id="webhook-tls-remove" checked');
    expect(both.body).not.toContain(keyBody);
    expect((await overApi(id)).has_tls_client_certificate).toBe(true);

    const removed = await post(t, owner, `/dashboard/webhooks/${id}/edit`, form({ tls_remove: 'yes' }));
    expect(removed.statusCode).toBe(303);
    expect((await overApi(id)).has_tls_client_certificate).toBe(false);
    const page = (await get(t, owner, `/dashboard/webhooks/${id}/edit`)).body;
    expect(page).not.toContain('A client certificate is set');
    expect(page).not.toContain('name="tls_remove"');
    // Three saves, in any order (entries of one millisecond do not sort): one left the certificate alone.
    const details = await auditDetails('webhook.updated', id);
    expect(details).toHaveLength(3);
    expect(details).toEqual(
      expect.arrayContaining([null, { tls_client_certificate: 'set' }, { tls_client_certificate: 'removed' }]),
    );
  });

  it('is refused to a viewer: no certificate set or removed', async () => {
    const before = await webhookCount();
    const created = await post(t, viewer, '/dashboard/webhooks', { ...form(pair), csrf: viewer.csrf });
    expect(created.statusCode).toBe(403);
    expect(await webhookCount()).toBe(before);

    const { id } = await registerWithCertificate();
    const removed = await post(t, viewer, `/dashboard/webhooks/${id}/edit`, {
      ...form({ tls_remove: 'yes' }),
      csrf: viewer.csrf,
    });
    expect(removed.statusCode).toBe(403);
    expect((await overApi(id)).has_tls_client_certificate).toBe(true);
  });
});
