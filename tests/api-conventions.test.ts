import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { within } from './helpers/within.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

describe('request ids', () => {
  it('puts X-Request-Id on every response, errors included, and echoes it in the error body', async () => {
    const ok = await t.request({ method: 'GET', url: '/healthz' });
    expect(ok.headers['x-request-id']).toMatch(/^req_/);
    const missing = await t.request({ method: 'GET', url: '/nowhere' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 'route_not_found', request_id: missing.headers['x-request-id'] });
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a bogus one', async () => {
    const kept = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'lb-1234567890' } });
    expect(kept.headers['x-request-id']).toBe('lb-1234567890');
    const replaced = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': '<script>' } });
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });
});

describe('health', () => {
  it('GET /healthz and /readyz answer 200 while the database answers', async () => {
    expect((await t.request({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await t.request({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});

describe('Idempotency-Key', () => {
  const post = (idempotencyKey: string, json: unknown, k = key) =>
    t.request({ method: 'POST', url: '/v1/collections', key: k, json, headers: { 'idempotency-key': idempotencyKey } });

  it('replays the first response for the same key and body, creating nothing new', async () => {
    const first = await post('create-1', { name: 'Once', description: 'd' });
    expect(first.statusCode).toBe(201);
    // Same JSON with keys in another order is the same request.
    const again = await post('create-1', { description: 'd', name: 'Once' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const rows = await t.deps.db.kysely.selectFrom('collections').select('id').where('name', '=', 'Once').execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses the same key with a different body (409 idempotency_key_reused)', async () => {
    await post('create-2', { name: 'A' });
    const res = await post('create-2', { name: 'B' });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('scopes keys per account', async () => {
    const other = await t.newAccount();
    const mine = await post('shared-key', { name: 'Mine' });
    const theirs = await post('shared-key', { name: 'Theirs' }, other.key);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().id).not.toBe(mine.json().id);
  });

  it('does not consume the key when the request fails schema validation', async () => {
    const invalid = await post('bad-1', { name: '' });
    expect(invalid.statusCode).toBe(400);
    const fixed = await post('bad-1', { name: 'fine' });
    expect(fixed.statusCode).toBe(201);
  });

  it('replays an error the handler returned', async () => {
    const blank = await post('bad-2', { name: '   ' });
    expect(blank.statusCode).toBe(400);
    const again = await post('bad-2', { name: '   ' });
    expect(again.statusCode).toBe(400);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(blank.json());
  });

  it('refuses malformed keys', async () => {
    const res = await post('x'.repeat(256), { name: 'A' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('Idempotency-Key');
  });

  it('forgets keys after 24 hours', async () => {
    await post('old-key', { name: 'Old' });
    await t.deps.db.kysely
      .updateTable('idempotency_keys')
      .set({ expires_at: '2000-01-01T00:00:00.000Z' })
      .where('key', '=', 'old-key')
      .execute();
    const res = await post('old-key', { name: 'New' });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('New');
  });
});

describe('rate limits', () => {
  let limitedApp: TestApp;
  beforeAll(async () => {
    limitedApp = await createTestApp({ env: { RATE_LIMIT_PER_MINUTE: '5' } });
  });
  afterAll(() => limitedApp.close());

  it('answers 429 with Retry-After and RateLimit headers once a key exceeds its budget', async () => {
    const t = limitedApp;
    const { key: limited } = await t.newAccount();
    const statuses: number[] = [];
    let last: Awaited<ReturnType<TestApp['request']>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await t.request({ method: 'GET', url: '/v1/collections', key: limited });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last?.json().error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);
    expect(last?.headers['ratelimit-policy']).toBe('"v1";q=5;w=60');
    expect(last?.headers.ratelimit).toMatch(/^"v1";r=0;t=\d+$/);
    // Another key has its own budget.
    const { key: fresh } = await t.newAccount();
    expect((await t.request({ method: 'GET', url: '/v1/collections', key: fresh })).statusCode).toBe(200);
  });
});

describe('API keys', () => {
  it('stores only a hash of the key and records last_used_at on use', async () => {
    const { key: plain, keyId } = await t.newAccount();
    const row = await t.deps.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', keyId).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(plain.slice(15));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.last_used_at).toBeNull();
    await t.request({ method: 'GET', url: '/v1/collections', key: plain });
    // The request does not wait for this write, so it lands a moment after the answer.
    const lastUsedAt = async () =>
      (await t.deps.db.kysely.selectFrom('api_keys').select('last_used_at').where('id', '=', keyId).executeTakeFirstOrThrow())
        .last_used_at;
    await within(5_000, async () => (await lastUsedAt()) !== null);
  });
});
