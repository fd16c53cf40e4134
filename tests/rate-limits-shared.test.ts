/**
 * Rate limits counted once across API processes: two app instances (two processes' worth of
 * state) share a Redis through REDIS_URL, so a limit of 30 lets 30 of 80 alternating requests
 * through, not 60. Without REDIS_URL each instance counts its own (documented as per process).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { validBody } from './helpers/entities.js';
import { redisAvailable, startTestRedis, type TestRedis } from './helpers/redis.js';

const LIMIT = 30;
/** A client address of this run alone, so counts left in a shared Redis by another run never meet it. */
const CLIENT = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
const REQUESTS = 80;

/** 80 requests from one client address, alternating between the instances; how many were not 429. */
async function passedThrough(apps: TestApp[], url: string, method: 'GET' | 'POST' = 'GET'): Promise<number> {
  let passed = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const t = apps[i % apps.length] as TestApp;
    const res = await t.app.inject({
      method,
      url,
      remoteAddress: CLIENT,
      ...(method === 'POST' ? { payload: validBody({ name: `Limit Agent ${i}` }) } : {}),
    });
    if (res.statusCode !== 429) passed++;
  }
  return passed;
}

const env = { RECORDER_RATE_LIMIT_PER_MINUTE: String(LIMIT), ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: String(LIMIT) };

// redis-server is a Debian package that CI installs and starts (REDIS_TEST_URL); a developer
// machine without it skips only this file.
describe.skipIf(!redisAvailable())('rate limits with REDIS_URL', () => {
  let redis: TestRedis;
  let apps: TestApp[];

  beforeAll(async () => {
    redis = await startTestRedis();
    apps = [
      await createTestApp({ env: { ...env, REDIS_URL: redis.url } }),
      await createTestApp({ env: { ...env, REDIS_URL: redis.url } }),
    ];
  });
  afterAll(async () => {
    for (const t of apps ?? []) await t.close();
    await redis?.close();
  });

  it('counts the recorder page once across two processes', async () => {
    expect(await passedThrough(apps, '/r/not-a-real-token-1')).toBe(LIMIT);
  });

  it('counts unpaid agent requests once across two processes, apart from the recorder', async () => {
    expect(await passedThrough(apps, '/api/entities/generate', 'POST')).toBe(LIMIT);
  });

  it('tells each client the shared count in its RateLimit field, whichever process answers', async () => {
    const client = `${CLIENT.split('.').slice(0, 3).join('.')}.0`;
    const remaining: string[] = [];
    for (const [i, t] of apps.entries()) {
      const res = await t.app.inject({ url: `/r/not-a-real-token-${i + 4}`, remoteAddress: client });
      expect(res.headers['ratelimit-policy']).toBe(`"recorder";q=${LIMIT};w=60`);
      remaining.push(/;r=(\d+);/.exec(String(res.headers.ratelimit))?.[1] ?? '');
    }
    expect(remaining).toEqual([String(LIMIT - 1), String(LIMIT - 2)]);
  });
});

describe('rate limits when Redis does not answer', () => {
  it('let requests through instead of failing them', async () => {
    const { freePort } = await import('./helpers/app.js');
    const t = await createTestApp({ env: { ...env, REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/r/not-a-real-token-3', remoteAddress: '198.51.100.8' });
      expect(res.statusCode).toBe(404);
      const { key } = await t.newAccount();
      const api = await t.request({ method: 'GET', url: '/v1/collections', key });
      expect(api.statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('rate limits without REDIS_URL', () => {
  let apps: TestApp[];
  beforeAll(async () => {
    apps = [await createTestApp({ env }), await createTestApp({ env })];
  });
  afterAll(async () => {
    for (const t of apps ?? []) await t.close();
  });

  it('are counted per process: two processes let twice the limit through', async () => {
    expect(await passedThrough(apps, '/r/not-a-real-token-2')).toBe(2 * LIMIT);
  });
});
