/**
 * The LTI tool's own keys: the key set at /lti/jwks, a rotation that publishes the new key a day
 * before it signs and keeps the old one published a week after, and keys that never leave the
 * database unsealed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  KEY_LIFETIME_MS,
  KEY_PUBLISHED_AFTER_REPLACEMENT_MS,
  KEY_PUBLISHED_BEFORE_SIGNING_MS,
  maintainToolKeys,
  signingKey,
} from '../src/features/lti/tool-keys.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';

const clock = new ManualClock('2027-03-01T09:00:00.000Z');
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ clock });
});
afterAll(() => t.close());

const publishedKids = async () => {
  const res = await t.app.inject({ method: 'GET', url: '/lti/jwks' });
  expect(res.statusCode).toBe(200);
  return res.json<{ keys: { kid: string }[] }>().keys.map((key) => key.kid);
};

it('publishes a new key a day before it signs, and the old one for a week after', async () => {
  const [first] = await publishedKids();
  expect((await signingKey(t.deps)).kid).toBe(first);

  clock.advance(KEY_LIFETIME_MS);
  await maintainToolKeys(t.deps);
  const both = await publishedKids();
  expect(both).toHaveLength(2);
  const second = both.find((kid) => kid !== first);
  // Published, not signing yet: platforms that cache the key set see it first.
  expect((await signingKey(t.deps)).kid).toBe(first);

  clock.advance(KEY_PUBLISHED_BEFORE_SIGNING_MS);
  expect((await signingKey(t.deps)).kid).toBe(second);
  expect(await publishedKids()).toContain(first);

  clock.advance(KEY_PUBLISHED_AFTER_REPLACEMENT_MS);
  await maintainToolKeys(t.deps);
  expect(await publishedKids()).toEqual([second]);
});

it('stores no private key in the clear', async () => {
  const rows = await t.deps.db.kysely.selectFrom('lti_tool_keys').selectAll().execute();
  for (const row of rows) {
    expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
    expect(row.private_key_sealed.split('.')).toHaveLength(3);
    expect(JSON.parse(row.public_jwk)).not.toHaveProperty('d');
  }
});
