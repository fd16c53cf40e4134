/**
 * Every HTML page carries the security headers of src/http/security-headers.ts: framing refused
 * everywhere but the embed widget, no sniffing, a referrer policy, isolation and feature policies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageSecurityHeaders } from '../src/http/security-headers.js';
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

describe('pageSecurityHeaders', () => {
  it('adds HSTS only over https', () => {
    expect(pageSecurityHeaders({ csp: [], https: true })['strict-transport-security']).toBe('max-age=31536000');
    expect(pageSecurityHeaders({ csp: [], https: false })['strict-transport-security']).toBeUndefined();
  });

  it('leaves the CSP to the page when it writes its own', () => {
    expect(pageSecurityHeaders({ csp: null, https: false })['content-security-policy']).toBeUndefined();
    expect(pageSecurityHeaders({ csp: null, https: false })['x-frame-options']).toBe('DENY');
  });
});
