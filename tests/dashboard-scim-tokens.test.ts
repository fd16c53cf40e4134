/**
 * The "Provisioning (SCIM)" card of the dashboard's API keys page: a token is shown once and works
 * at /scim/v2, only its prefix is listed after, revoking it refuses it at once, viewers see the
 * card but cannot create or revoke, another organisation's token id is a 404, and both actions
 * are in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';
import { scim } from './helpers/scim.js';
import { accountIdOf } from './helpers/webhooks.js';

let t: TestApp;
let owner: Browserish & { csrf: string };
let viewer: Browserish & { csrf: string };
let stranger: Browserish & { csrf: string };
const OWNER = 'it-admin@university.example';

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.21');
  viewer = await inviteAndJoin(t, owner, 'registrar@university.example', 'viewer', '203.0.113.22');
  stranger = await signIn(t, 'someone@elsewhere.example', '203.0.113.23');
});
afterAll(() => t.close());

const tokenOf = (page: string) => /id="new-scim-token" class="secret" readonly value="(vnscim_[A-Za-z0-9_-]+)"/.exec(page)?.[1];
const idOf = (page: string, prefix: string) =>
  new RegExp(`data-scim-token-id="([0-9a-f-]{36})" data-prefix="${prefix}"`).exec(page)?.[1];

describe('SCIM tokens in the dashboard', () => {
  it('creates a token shown once with the tenant URL; the list shows only its prefix; it works at /scim/v2', async () => {
    const created = await post(t, owner, '/dashboard/scim-tokens', { csrf: owner.csrf, name: 'Entra ID' });
    expect(created.statusCode).toBe(201);
    const token = tokenOf(created.body) as string;
    expect(token).toMatch(/^vnscim_/);
    expect(created.body).toContain('http://localhost:3000/scim/v2');
    const list = await get(t, owner, '/dashboard/api-keys');
    expect(list.body).toContain('Provisioning (SCIM)');
    expect(list.body).toContain('Entra ID');
    expect(list.body).toContain(`${token.slice(0, 19)}…`);
    expect(list.body).not.toContain(token);
    expect((await scim(t, token, 'GET', '/Users')).statusCode).toBe(200);
    const stored = await t.deps.db.kysely.selectFrom('scim_tokens').selectAll().execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('revoking refuses the token at once and says so', async () => {
    const created = await post(t, owner, '/dashboard/scim-tokens', { csrf: owner.csrf, name: 'Okta' });
    const token = tokenOf(created.body) as string;
    const id = idOf((await get(t, owner, '/dashboard/api-keys')).body, token.slice(0, 19)) as string;
    const confirm = await get(t, owner, `/dashboard/scim-tokens/${id}/revoke`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('fail with 401');
    const revoked = await post(t, owner, `/dashboard/scim-tokens/${id}/revoke`, { csrf: owner.csrf });
    expect(revoked.statusCode).toBe(303);
    expect((await scim(t, token, 'GET', '/Users')).statusCode).toBe(401);
    const page = await get(t, owner, revoked.headers.location as string);
    expect(page.body).toContain('The SCIM token was revoked');
    expect((await post(t, owner, `/dashboard/scim-tokens/${id}/revoke`, { csrf: owner.csrf })).statusCode).toBe(404);
  });

  it('viewers see the card but cannot create or revoke', async () => {
    const page = await get(t, viewer, '/dashboard/api-keys');
    expect(page.body).toContain('Provisioning (SCIM)');
    expect(page.body).not.toContain('action="/dashboard/scim-tokens"');
    expect(page.body).not.toContain('/revoke">Revoke…');
    expect((await post(t, viewer, '/dashboard/scim-tokens', { csrf: viewer.csrf, name: 'Sneaky' })).statusCode).toBe(403);
    const id = idOf((await get(t, owner, '/dashboard/api-keys')).body, 'vnscim_[A-Za-z0-9_-]{12}') as string;
    expect((await post(t, viewer, `/dashboard/scim-tokens/${id}/revoke`, { csrf: viewer.csrf })).statusCode).toBe(403);
    expect((await get(t, viewer, `/dashboard/scim-tokens/${id}/revoke`)).statusCode).toBe(403);
  });

  it('another organisation cannot revoke this one’s token (404), and a bad name is refused at the field', async () => {
    const id = idOf((await get(t, owner, '/dashboard/api-keys')).body, 'vnscim_[A-Za-z0-9_-]{12}') as string;
    expect((await post(t, stranger, `/dashboard/scim-tokens/${id}/revoke`, { csrf: stranger.csrf })).statusCode).toBe(404);
    const bad = await post(t, owner, '/dashboard/scim-tokens', { csrf: owner.csrf, name: 'x'.repeat(101) });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('id="scim-token-name-error"');
  });

  it('creating and revoking are in the audit log under the member who did it', async () => {
    const accountId = await accountIdOf(t, OWNER);
    const entries = await t.deps.db.kysely.selectFrom('audit_log').selectAll().where('account_id', '=', accountId).execute();
    const actions = entries.filter((e) => e.action.startsWith('scim_token.')).map((e) => [e.action, e.actor]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['scim_token.created', OWNER],
        ['scim_token.revoked', OWNER],
      ]),
    );
  });
});
