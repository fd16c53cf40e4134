/**
 * Dashboard pages through the real app: API keys (create shown once, use, revoke, scoped to the
 * account), webhooks (health, re-enable after auto-disable, recent deliveries), form tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { accountIdOf, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let alice: Browserish & { csrf: string };
let mallory: Browserish & { csrf: string };
const ALICE = 'alice@example.com';
const MALLORY = 'mallory@example.com';

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  alice = await signIn(t, ALICE, '203.0.113.1');
  mallory = await signIn(t, MALLORY, '203.0.113.2');
});
afterAll(() => t.close());

const keyOf = (page: string) => /id="new-key" class="secret" readonly value="(vn_[A-Za-z0-9_-]+)"/.exec(page)?.[1];

async function createKey(who: Browserish & { csrf: string }, name: string) {
  const res = await post(t, who, '/dashboard/api-keys', { csrf: who.csrf, name });
  expect(res.statusCode).toBe(201);
  const key = keyOf(res.body) as string;
  expect(key).toMatch(/^vn_[A-Za-z0-9_-]{44}$/);
  const id = (
    await t.deps.db.kysely.selectFrom('api_keys').select('id').where('prefix', '=', key.slice(0, 15)).executeTakeFirstOrThrow()
  ).id;
  return { key, id, page: res.body };
}

describe('API keys', () => {
  it('creates a key, shows it exactly once, and lists it by prefix only', async () => {
    const { key, page } = await createKey(alice, 'CI runner');
    expect(page).toContain('This is the only time it is shown');
    const list = await get(t, alice, '/dashboard/api-keys');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(key);
    expect(list.body).toContain(`${key.slice(0, 15)}…`);
    expect(list.body).toContain('CI runner');
    const v1 = await t.request({ method: 'GET', url: '/v1/collections', key });
    expect(v1.statusCode).toBe(200);
  });

  it('refuses creation without the form token or with another session’s token', async () => {
    const before = await t.deps.db.kysely.selectFrom('api_keys').select('id').execute();
    expect((await post(t, alice, '/dashboard/api-keys', { name: 'no token' })).statusCode).toBe(403);
    expect((await post(t, alice, '/dashboard/api-keys', { name: 'wrong', csrf: mallory.csrf })).statusCode).toBe(403);
    expect((await post(t, alice, '/dashboard/api-keys', { name: 'short', csrf: alice.csrf.slice(1) })).statusCode).toBe(403);
    const after = await t.deps.db.kysely.selectFrom('api_keys').select('id').execute();
    expect(after).toHaveLength(before.length);
  });

  it('accepts a name of 100 characters and refuses 101', async () => {
    const ok = await post(t, alice, '/dashboard/api-keys', { csrf: alice.csrf, name: 'n'.repeat(100) });
    expect(ok.statusCode).toBe(201);
    const tooLong = await post(t, alice, '/dashboard/api-keys', { csrf: alice.csrf, name: 'n'.repeat(101) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('at most 100 characters');
  });

  it('escapes a hostile key name', async () => {
    await createKey(alice, '<script>alert(1)</script>');
    const list = await get(t, alice, '/dashboard/api-keys');
    expect(list.body).not.toContain('<script>alert(1)</script>');
    expect(list.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('revokes a key after confirmation; the key then gets 401', async () => {
    const { key, id } = await createKey(alice, 'to revoke');
    const confirm = await get(t, alice, `/dashboard/api-keys/${id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('This cannot be undone');
    expect((await post(t, alice, `/dashboard/api-keys/${id}/revoke`, {})).statusCode).toBe(403);
    const revoked = await post(t, alice, `/dashboard/api-keys/${id}/revoke`, { csrf: alice.csrf });
    expect(revoked.statusCode).toBe(303);
    expect(revoked.headers.location).toBe('/dashboard/api-keys?notice=key-revoked');
    const list = await get(t, alice, revoked.headers.location as string);
    expect(list.body).toContain('The key was revoked.');
    expect(list.body).toMatch(new RegExp(`data-key-id="${id}"[\\s\\S]*?Revoked`));
    expect((await t.request({ method: 'GET', url: '/v1/collections', key })).statusCode).toBe(401);
    expect((await post(t, alice, `/dashboard/api-keys/${id}/revoke`, { csrf: alice.csrf })).statusCode).toBe(404);
  });

  it('another account can neither see nor revoke your keys (404)', async () => {
    const { key, id } = await createKey(alice, 'private');
    expect((await get(t, mallory, '/dashboard/api-keys')).body).not.toContain(key.slice(0, 15));
    expect((await get(t, mallory, `/dashboard/api-keys/${id}/revoke`)).statusCode).toBe(404);
    const attempt = await post(t, mallory, `/dashboard/api-keys/${id}/revoke`, { csrf: mallory.csrf });
    expect(attempt.statusCode).toBe(404);
    expect(attempt.body).toContain('No such active API key');
    expect((await t.request({ method: 'GET', url: '/v1/collections', key })).statusCode).toBe(200);
    expect((await post(t, mallory, '/dashboard/api-keys/not-a-uuid/revoke', { csrf: mallory.csrf })).statusCode).toBe(404);
  });
});

describe('webhooks', () => {
  async function registerWebhook(url = 'http://127.0.0.1:9/hook') {
    const { key } = await createKey(alice, 'webhooks');
    const res = await t.request({ method: 'POST', url: '/v1/webhooks', key, json: { url, events: ['recording.completed'] } });
    expect(res.statusCode).toBe(201);
    return res.json().id as string;
  }

  const autoDisable = (id: string) =>
    t.deps.db.kysely
      .updateTable('webhooks')
      .set({
        status: 'disabled',
        consecutive_failures: 10,
        disabled_reason: 'consecutive_failures',
        disabled_at: '2026-02-01T10:00:00.000Z',
      })
      .where('id', '=', id)
      .execute();

  it('shows a disabled webhook with why, its failures and a Re-enable button that works', async () => {
    const id = await registerWebhook();
    await autoDisable(id);
    const overview = await get(t, alice, '/dashboard');
    expect(overview.body).toContain('A webhook is disabled');

    const list = await get(t, alice, '/dashboard/webhooks');
    const card = new RegExp(`data-webhook-id="${id}" data-status="disabled"[\\s\\S]*?</article>`).exec(list.body)?.[0] as string;
    expect(card).toContain('http://127.0.0.1:9/hook');
    expect(card).toContain('<code>recording.completed</code>');
    expect(card).toContain('<dd class="failures">10</dd>');
    expect(card).toContain('after 10 consecutive failed delivery attempts');
    expect(card).toContain('2026-02-01 10:00 UTC');
    expect(card).toContain(`action="/dashboard/webhooks/${id}/enable"`);

    expect((await post(t, alice, `/dashboard/webhooks/${id}/enable`, {})).statusCode).toBe(403);
    const enabled = await post(t, alice, `/dashboard/webhooks/${id}/enable`, { csrf: alice.csrf });
    expect(enabled.statusCode).toBe(303);
    const after = await get(t, alice, enabled.headers.location as string);
    expect(after.body).toContain('The webhook is enabled again.');
    expect(after.body).toContain(`data-webhook-id="${id}" data-status="enabled"`);
    const row = await t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'enabled', consecutive_failures: 0, disabled_reason: null, disabled_at: null });
  });

  it('another account cannot see or re-enable your webhook (404)', async () => {
    const id = await registerWebhook();
    await autoDisable(id);
    expect((await get(t, mallory, '/dashboard/webhooks')).body).not.toContain(id);
    expect((await get(t, mallory, `/dashboard/webhooks/${id}`)).statusCode).toBe(404);
    expect((await post(t, mallory, `/dashboard/webhooks/${id}/enable`, { csrf: mallory.csrf })).statusCode).toBe(404);
    const row = await t.deps.db.kysely.selectFrom('webhooks').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.status).toBe('disabled');
  });

  it('lists recent deliveries of a webhook', async () => {
    const id = await registerWebhook('http://127.0.0.1:9/deliveries');
    await recordTestEvent(t, await accountIdOf(t, ALICE));
    await dispatchDue(t);
    const page = await get(t, alice, `/dashboard/webhooks/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(
      /<article class="card delivery" data-delivery-id="whd_[0-9a-f]{32}" data-status="pending">\s*<h3><code>recording.completed<\/code>/,
    );
    expect(page.body).toContain('Not sent yet');
  });
});
