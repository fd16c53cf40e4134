/**
 * Migration 0017 on agent profiles published before it: each gets the confusable skeleton of its
 * slug; where two old profiles already look alike, the older keeps the skeleton and the younger
 * gets one no new name can produce, so the unique index builds and both stay published.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest, migrationNames } from '../src/db/migrate.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createTestDatabase } from './helpers/database.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { generate, validBody } from './helpers/entities.js';

let t: TestApp;
const entity = (id: string, slug: string, createdAt: string) => ({
  id,
  slug,
  name: slug,
  entity_type: 'ai_agent',
  description: 'An agent published before look-alike checks.',
  operator: 'Example',
  visibility: 'public',
  avatar_url: null,
  source_url: null,
  voice_style: null,
  language: null,
  intro: null,
  external_metadata: null,
  agent_id: null,
  callback_url: null,
  created_via: 'agent_api',
  claim_state: 'unclaimed',
  verification_state: 'unverified',
  payment_intent_id: `pi_${id.replace(/-/g, '').slice(0, 24)}`,
  payment_method: 'card',
  deletion_token_hash: 'x'.repeat(64),
  audio_blob_key: `entities/${id}/name.mp3`,
  audio_byte_size: 1,
  audio_duration_ms: 1,
  created_at: createdAt,
  deleted_at: null,
  claimed_by_account_id: null,
  claimed_at: null,
  domain_token: null,
  verified_domain: null,
  domain_verified_at: null,
});
const APEX = '11111111-1111-4111-8111-111111111111';
const CYRILLIC_APEX = '22222222-2222-4222-8222-222222222222';

beforeAll(async () => {
  const database = await createTestDatabase({ migrate: false });
  const names = migrationNames();
  await migrateTo(database.db, names[names.indexOf('0017_name_skeleton') - 1] as string);
  const db = database.db.kysely as unknown as import('kysely').Kysely<Record<string, Record<string, unknown>>>;
  await db
    .insertInto('entities')
    .values([
      entity(APEX, 'apex', '2026-01-01T00:00:00.000Z'),
      entity(CYRILLIC_APEX, '\u0430\u0440\u0435\u0445', '2026-01-02T00:00:00.000Z'),
    ])
    .execute();
  await migrateToLatest(database.db);
  t = await createTestApp({ database, overrides: { speech: new FakeSpeech() } });
});
afterAll(() => t?.close());

describe('migration 0017 (name skeletons)', () => {
  it('gives old profiles their skeletons, the older look-alike keeping it', async () => {
    const rows = await t.deps.db.kysely.selectFrom('entities').select(['id', 'name_skeleton']).orderBy('created_at').execute();
    expect(rows).toEqual([
      { id: APEX, name_skeleton: 'apex' },
      { id: CYRILLIC_APEX, name_skeleton: `apex#${CYRILLIC_APEX}` },
    ]);
  });

  it('keeps both old profiles published, and refuses a new look-alike of them', async () => {
    expect((await t.request({ method: 'GET', url: '/e/apex/.well-known/service.json' })).statusCode).toBe(200);
    const res = await generate(t, validBody({ name: 'Apex' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('/e/apex');
  });
});
