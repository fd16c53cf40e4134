/**
 * Every HTML page carries the security headers of src/http/security-headers.ts: framing refused
 * everywhere but the embed widget, no sniffing, a referrer policy, isolation and feature policies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { addRecordedUser, addUser, createCollection } from './helpers/play-link-fixtures.js';

let t: TestApp;
let playToken: string;
let recordToken: string;
let profilePath: string;
let deletionToken: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
  const { key } = await t.newAccount();
  const collectionId = await createCollection(t, key);
  ({ token: playToken } = await addRecordedUser(t, collectionId));
  const userId = await addUser(t, collectionId);
  ({ record_token: recordToken } = await t.deps.db.kysely
    .selectFrom('users')
    .select('record_token')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow());
  const { paid } = await publishEntity(t, validBody());
  profilePath = new URL(paid.json().entity.profile_url).pathname;
  deletionToken = paid.json().receipt.deletion_token;
});
afterAll(() => t.close());

const get = (url: string) => t.app.inject({ method: 'GET', url });

/** The headers every page that refuses framing sends. */
function expectNotFrameable(headers: Record<string, unknown>, referrer = 'no-referrer') {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['content-security-policy']).toMatch(/(^|; )frame-ancestors 'none'$/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe(referrer);
  expect(headers['cross-origin-opener-policy']).toBe('same-origin');
  expect(headers['cross-origin-resource-policy']).toBe('same-origin');
  expect(headers['permissions-policy']).toMatch(/^camera=\(\), microphone=\((self)?\), geolocation=\(\)$/);
  expect(headers['strict-transport-security']).toBeUndefined();
}

describe('page security headers', () => {
  it('player page, found or not', async () => {
    for (const url of [`/p/${playToken}`, '/p/NoSuchToken123456']) {
      const res = await get(url);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expectNotFrameable(res.headers, 'strict-origin-when-cross-origin');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['permissions-policy']).toBe('camera=(), microphone=(), geolocation=()');
    }
  });

  it('embed widget: frameable by any origin, otherwise the same headers', async () => {
    for (const url of [`/p/${playToken}/embed`, '/p/NoSuchToken123456/embed']) {
      const res = await get(url);
      expect(res.headers['x-frame-options']).toBeUndefined();
      expect(res.headers['content-security-policy']).toMatch(/; frame-ancestors \*$/);
      expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
      expect(res.headers['permissions-policy']).toBe('camera=(), microphone=(), geolocation=()');
    }
  });

  it('recorder page, found or not: the microphone for this origin only', async () => {
    for (const url of [`/r/${recordToken}`, '/r/NoSuchToken123']) {
      const res = await get(url);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expectNotFrameable(res.headers);
      expect(res.headers['permissions-policy']).toBe('camera=(), microphone=(self), geolocation=()');
      expect(res.headers['content-security-policy']).toContain("media-src 'self' blob:");
    }
  });

  it('dashboard pages', async () => {
    const res = await get('/dashboard/sign-in');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expectNotFrameable(res.headers);
    expect(res.headers['content-security-policy']).not.toContain('script-src');
  });

  it('entity profile: found, deleted (410) and unknown', async () => {
    const found = await get(profilePath);
    expect(found.statusCode).toBe(200);
    expectNotFrameable(found.headers);
    expect(found.headers['content-security-policy']).toBe(
      "default-src 'none'; img-src 'self' https: data:; media-src 'self'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    const unknown = await get('/e/no-such-profile-here');
    expect(unknown.statusCode).toBe(404);
    expectNotFrameable(unknown.headers);
    const slug = profilePath.split('/').pop() as string;
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/entities/${slug}`,
      headers: { 'deletion-token': deletionToken },
    });
    expect(deleted.statusCode).toBe(200);
    const gone = await get(profilePath);
    expect(gone.statusCode).toBe(410);
    expectNotFrameable(gone.headers);
  });

  it('docs (/docs): guides without script, the API reference with scripts from this origin only', async () => {
    for (const url of ['/docs', '/docs/quick-start', '/docs/no-such-guide']) {
      const res = await get(url);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expectNotFrameable(res.headers);
      expect(res.headers['content-security-policy']).not.toContain('script-src');
    }
    const reference = await get('/docs/reference');
    expectNotFrameable(reference.headers);
    expect(reference.headers['content-security-policy']).toContain("script-src 'self';");
    expect(reference.headers['content-security-policy']).not.toContain("'unsafe-eval'");
    // BASE_URL is plain http here: nothing may be upgraded to https (that left the old docs blank).
    expect(reference.headers['content-security-policy']).not.toContain('upgrade-insecure-requests');
  });
});

/** Headers helmet sends by default that no page of ours ever sent: they stay off. */
const HELMET_DEFAULTS_OFF = [
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
  'cross-origin-embedder-policy',
];

describe('the set of headers', () => {
  it('pages send exactly their own set, none of the helmet defaults they never sent', async () => {
    for (const url of [
      '/',
      `/p/${playToken}`,
      `/p/${playToken}/embed`,
      `/r/${recordToken}`,
      '/dashboard/sign-in',
      profilePath,
      '/docs',
    ]) {
      const res = await get(url);
      for (const name of HELMET_DEFAULTS_OFF) expect(res.headers[name], `${url} ${name}`).toBeUndefined();
    }
  });

  it('answers that are not pages (JSON, health) carry no page headers', async () => {
    for (const url of ['/healthz', '/v1/openapi.json']) {
      const res = await get(url);
      for (const name of [
        'x-frame-options',
        'referrer-policy',
        'cross-origin-opener-policy',
        'permissions-policy',
        'content-security-policy',
      ]) {
        expect(res.headers[name], `${url} ${name}`).toBeUndefined();
      }
    }
  });

  it('over https, every page asks browsers to keep to https for a year', async () => {
    const secure = await createTestApp({ env: { BASE_URL: 'https://voicename.example' } });
    try {
      for (const url of [
        '/',
        '/p/NoSuchToken123456',
        '/p/NoSuchToken123456/embed',
        '/r/NoSuchToken123',
        '/dashboard/sign-in',
        '/docs',
      ]) {
        const res = await secure.app.inject({ method: 'GET', url });
        expect(res.headers['strict-transport-security'], url).toBe('max-age=31536000');
      }
    } finally {
      await secure.close();
    }
  });
});
