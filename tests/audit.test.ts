/**
 * The audit log: one mechanism (a per-route action name in route config, written when the
 * request succeeds) for the dashboard and the /v1 API. Every mutating route the app registers
 * must name an action or say why it is exempt; entries name who, what, which object, when and
 * from where; failures and idempotent replays write nothing; owners page through their own
 * organisation's log only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../src/features/api-keys/service.js';
import { AUDIT_PAGE_SIZE } from '../src/features/audit/service.js';
import { MUTATING_METHODS } from '../src/http/route-catalogue.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
const clock = new ManualClock('2026-03-01T09:00:00.000Z');
let owner: Browserish & { csrf: string };
let key: string;
let keyPrefix: string;
const OWNER = 'owner@example.com';
const API_IP = '192.0.2.44';

beforeAll(async () => {
  t = await createTestApp({ clock });
  owner = await signIn(t, OWNER, '203.0.113.1');
  const created = await createApiKey(t.deps, { accountEmail: OWNER, name: 'CI runner' });
  key = created.key;
  keyPrefix = created.prefix;
});
afterAll(() => t.close());

/** A /v1 request from a fixed client address, one millisecond after the previous one (so entries order by time). */
const api = (method: 'POST' | 'PATCH' | 'DELETE' | 'GET', url: string, json?: unknown, headers: Record<string, string> = {}) => {
  clock.advance(1);
  return t.request({ method, url, key, remoteAddress: API_IP, headers, ...(json === undefined ? {} : { json }) });
};

const entries = async () =>
  t.deps.db.kysely.selectFrom('audit_log').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').execute();

describe('every mutating route is audited or explicitly exempt', () => {
  it('finds an action name (noun.verb) or a stated reason on each mutating /v1 and dashboard route', () => {
    const routes = t.app.routeCatalogue.filter(
      (r) => MUTATING_METHODS.has(r.method) && (r.url.startsWith('/v1/') || r.url.startsWith('/dashboard')),
    );
    expect(routes.length).toBeGreaterThanOrEqual(25);
    const missing = routes
      .filter((r) => {
        const audit = r.config.audit;
        if (typeof audit === 'string') return !/^[a-z_]+\.[a-z_]+$/.test(audit);
        return !(audit && typeof audit.exempt === 'string' && audit.exempt.length >= 10);
      })
      .map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });
});

describe('entries', () => {
  it('records /v1 changes with the key’s prefix and name, the object and the client address', async () => {
    const collection = await api('POST', '/v1/collections', { name: 'Class of 2027' });
    expect(collection.statusCode).toBe(201);
    const collectionId = collection.json().id as string;
    const batch = await api('POST', `/v1/collections/${collectionId}/users/batch`, {
      users: [{ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace' }],
    });
    expect(batch.statusCode).toBe(201);
    const userId = batch.json().data[0].id as string;
    expect((await api('DELETE', `/v1/collections/${collectionId}/users/${userId}`)).statusCode).toBe(200);

    const [deleted, imported, created] = await entries();
    expect(created).toMatchObject({
      actor_kind: 'api_key',
      actor: keyPrefix,
      actor_name: 'CI runner',
      action: 'collection.created',
      object_id: collectionId,
      ip: API_IP,
    });
    expect(imported).toMatchObject({ action: 'users.imported', object_id: collectionId });
    expect(deleted).toMatchObject({ action: 'user.deleted', object_id: userId });
    expect(Date.parse(deleted?.created_at as string)).toBe(clock.now().getTime());
  });

  it('writes nothing for a refused request or an idempotent replay', async () => {
    const before = (await entries()).length;
    expect((await api('DELETE', '/v1/webhooks/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    expect((await api('POST', '/v1/collections', { name: '' })).statusCode).toBe(400);
    expect((await entries()).length).toBe(before);

    const first = await api('POST', '/v1/collections', { name: 'Once' }, { 'idempotency-key': 'audit-once' });
    const replay = await api('POST', '/v1/collections', { name: 'Once' }, { 'idempotency-key': 'audit-once' });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const added = (await entries()).slice(0, (await entries()).length - before);
    expect(added.map((e) => [e.action, e.object_id])).toEqual([['collection.created', first.json().id]]);
  });

  it('records dashboard changes with the member’s e-mail and the object', async () => {
    clock.advance(1);
    const created = await post(t, owner, '/dashboard/api-keys', { csrf: owner.csrf, name: 'from the dashboard' });
    expect(created.statusCode).toBe(201);
    const row = await t.deps.db.kysely
      .selectFrom('api_keys')
      .select('id')
      .where('name', '=', 'from the dashboard')
      .executeTakeFirstOrThrow();
    clock.advance(1);
    expect((await post(t, owner, `/dashboard/api-keys/${row.id}/revoke`, { csrf: owner.csrf })).statusCode).toBe(303);
    const [revoked, made] = await entries();
    expect(made).toMatchObject({
      actor_kind: 'member',
      actor: OWNER,
      actor_name: null,
      action: 'api_key.created',
      object_id: row.id,
    });
    expect(revoked).toMatchObject({ actor: OWNER, action: 'api_key.revoked', object_id: row.id, ip: '203.0.113.1' });
  });
});

describe('the audit page', () => {
  it('shows owners their log newest first, in pages that neither skip nor repeat', async () => {
    for (let i = 0; i < AUDIT_PAGE_SIZE + 5; i++) await api('POST', '/v1/collections', { name: `Bulk ${i}` });
    const total = (await entries()).length;
    const first = await get(t, owner, '/dashboard/audit');
    expect(first.statusCode).toBe(200);
    const rowsOf = (body: string) => [...body.matchAll(/<tr data-action="([^"]+)">/g)].map((m) => m[1]);
    expect(rowsOf(first.body)).toHaveLength(AUDIT_PAGE_SIZE);
    expect(first.body).toContain(`API key <code>${keyPrefix}…</code> <span class="muted">(CI runner)</span>`);
    expect(first.body).toContain(`<code>${API_IP}</code>`);
    const times = [...first.body.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1] as string);
    expect(times).toEqual([...times].sort().reverse());

    const seen: string[] = [];
    let body = first.body;
    for (;;) {
      seen.push(
        ...[...body.matchAll(/<tr data-action="[^"]+">\s*<td data-label="When"><time datetime="[^"]+"/g)].map((m) => m[0]),
      );
      const older = /href="(\/dashboard\/audit\?cursor=[^"]+)" id="older"/.exec(body)?.[1];
      if (!older) break;
      body = (await get(t, owner, older.replace(/&amp;/g, '&'))).body;
    }
    expect(seen).toHaveLength(total);
    expect(body).toContain('collection.created');
    expect((await get(t, owner, '/dashboard/audit?cursor=not!a!cursor')).statusCode).toBe(400);
  });

  it('shows another organisation only its own entries', async () => {
    const other = await signIn(t, 'other-owner@example.com', '203.0.113.2');
    const empty = await get(t, other, '/dashboard/audit');
    expect(empty.body).toContain('id="no-audit"');
    await post(t, other, '/dashboard/api-keys', { csrf: other.csrf, name: 'theirs' });
    const theirs = await get(t, other, '/dashboard/audit');
    expect([...theirs.body.matchAll(/<tr data-action=/g)]).toHaveLength(1);
    expect(theirs.body).not.toContain(keyPrefix);
    expect((await get(t, owner, '/dashboard/audit')).body).not.toContain('other-owner@example.com');
  });
});
