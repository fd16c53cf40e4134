/**
 * Migration 0011 on a database holding data from before it: every account becomes a one-member
 * organisation owned by its e-mail, and nothing is lost: keys still authenticate, collections
 * and webhooks still answer, live dashboard sessions stay signed in (now as the owner).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest, migrationNames } from '../src/db/migrate.js';
import { sha256Hex } from '../src/lib/secrets.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase } from './helpers/database.js';
import { get, newBrowser, signIn } from './helpers/dashboard.js';

const NOW = '2026-03-01T09:00:00.000Z';
const ALICE = { id: '11111111-1111-4111-8111-111111111111', email: 'alice@example.com' };
const BOB = { id: '22222222-2222-4222-8222-222222222222', email: 'bob@example.com' };
const ALICE_KEY = `vn_${'a'.repeat(12)}${'k'.repeat(32)}`;
const ALICE_SESSION = 'S'.repeat(43);

let t: TestApp;

beforeAll(async () => {
  const database = await createTestDatabase({ migrate: false });
  const names = migrationNames();
  const before = names[names.indexOf('0011_organisations') - 1] as string;
  await migrateTo(database.db, before);
  // The schema as it was: written through an untyped handle, as the old code would have.
  const db = database.db.kysely as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  await db
    .insertInto('accounts')
    .values([
      { ...ALICE, created_at: '2026-01-01T00:00:00.000Z' },
      { ...BOB, created_at: '2026-01-02T00:00:00.000Z' },
    ])
    .execute();
  await db
    .insertInto('api_keys')
    .values({
      id: '33333333-3333-4333-8333-333333333333',
      account_id: ALICE.id,
      prefix: ALICE_KEY.slice(0, 15),
      key_hash: sha256Hex(ALICE_KEY),
      name: 'production',
      created_at: NOW,
      last_used_at: null,
      revoked_at: null,
    })
    .execute();
  await db
    .insertInto('collections')
    .values({
      id: '44444444-4444-4444-8444-444444444444',
      account_id: ALICE.id,
      name: 'Class of 2027',
      description: null,
      custom_fields: '[]',
      created_at: NOW,
      updated_at: NOW,
      archived_at: null,
    })
    .execute();
  await db
    .insertInto('webhooks')
    .values({
      id: '55555555-5555-4555-8555-555555555555',
      account_id: ALICE.id,
      url: 'https://hooks.example.com/voicename',
      events: '["*"]',
      description: null,
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      secret: `whsec_${'x'.repeat(32)}`,
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
  await db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: sha256Hex(ALICE_SESSION),
      account_id: ALICE.id,
      created_at: NOW,
      expires_at: '2099-01-01T00:00:00.000Z',
      user_agent: 'old browser',
    })
    .execute();

  await migrateToLatest(database.db);
  t = await createTestApp({ database });
});
afterAll(() => t.close());

describe('migration 0011: accounts become organisations', () => {
  it('makes every account a one-member organisation owned by its e-mail', async () => {
    const members = await t.deps.db.kysely.selectFrom('account_members').selectAll().orderBy('email').execute();
    expect(members).toEqual([
      { account_id: ALICE.id, email: ALICE.email, role: 'owner', created_at: '2026-01-01T00:00:00.000Z', invited_by: null },
      { account_id: BOB.id, email: BOB.email, role: 'owner', created_at: '2026-01-02T00:00:00.000Z', invited_by: null },
    ]);
  });

  it('keeps keys, collections and webhooks answering for the organisation through /v1', async () => {
    const collections = await t.request({ method: 'GET', url: '/v1/collections', key: ALICE_KEY });
    expect(collections.statusCode).toBe(200);
    expect(collections.json().data.map((c: { name: string }) => c.name)).toEqual(['Class of 2027']);
    const webhooks = await t.request({ method: 'GET', url: '/v1/webhooks', key: ALICE_KEY });
    expect(webhooks.json().data.map((w: { url: string }) => w.url)).toEqual(['https://hooks.example.com/voicename']);
  });

  it('keeps a session from before signed in, now as the owner of its organisation', async () => {
    const browser = newBrowser();
    browser.cookies.set('vn_session', ALICE_SESSION);
    const keys = await get(t, browser, '/dashboard/api-keys');
    expect(keys.statusCode).toBe(200);
    expect(keys.body).toContain('production');
    expect(keys.body).toContain(`${ALICE_KEY.slice(0, 15)}…`);
    expect(keys.body).toContain('href="/dashboard/audit"'); // owners see the audit log
    const session = await t.deps.db.kysely.selectFrom('dashboard_sessions').selectAll().executeTakeFirstOrThrow();
    expect(session).toMatchObject({ email: ALICE.email, account_id: ALICE.id, user_agent: 'old browser' });
  });

  it('signs an existing account in to its own organisation, creating nothing new', async () => {
    const bob = await signIn(t, BOB.email);
    const members = await get(t, bob, '/dashboard/members');
    expect(members.statusCode).toBe(200);
    expect(members.body).toContain(BOB.email);
    expect(members.body).not.toContain(ALICE.email);
    expect(await t.deps.db.kysely.selectFrom('accounts').select('id').execute()).toHaveLength(2);
  });
});
