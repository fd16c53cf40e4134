/**
 * One rate-limit convention on every API: the IETF `RateLimit-Policy` and `RateLimit` fields
 * (draft-ietf-httpapi-ratelimit-headers-11), read here with a structured-field parser as a client
 * would, on an answer within the limit and on the 429 past it (which adds `Retry-After`); none of
 * the older `RateLimit-Limit`/`X-RateLimit-*` headers remain.
 */
import type { LightMyRequestResponse } from 'fastify';
import { parseRateLimits } from '@voicename/sdk';
import { parseList } from 'structured-headers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { validBody } from './helpers/entities.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { newScimOrg, scim } from './helpers/scim.js';

const LIMIT = 3;

/** The two fields as a client reads them: one item each, named by the policy, with its parameters. */
function readFields(res: LightMyRequestResponse) {
  const policy = parseList(String(res.headers['ratelimit-policy']));
  const current = parseList(String(res.headers.ratelimit));
  expect(policy).toHaveLength(1);
  expect(current).toHaveLength(1);
  const [policyName, policyParams] = policy[0]!;
  const [currentName, currentParams] = current[0]!;
  expect(currentName).toBe(policyName);
  for (const old of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-ratelimit-limit', 'x-ratelimit-remaining']) {
    expect(res.headers[old], old).toBeUndefined();
  }
  const read = {
    name: policyName,
    quota: policyParams.get('q'),
    window: policyParams.get('w'),
    remaining: currentParams.get('r'),
    reset: currentParams.get('t') as number,
  };
  // The SDK reads the same.
  const sdk = parseRateLimits(new Headers(res.headers as Record<string, string>));
  expect(sdk).toEqual([
    { policy: read.name, limit: read.quota, windowSeconds: read.window, remaining: read.remaining, resetSeconds: read.reset },
  ]);
  return read;
}

/** `LIMIT + 1` calls: each of the first answers within the limit, the last is the 429. */
async function exhaust(call: () => Promise<LightMyRequestResponse>, okStatus: number) {
  const answers: LightMyRequestResponse[] = [];
  for (let i = 0; i <= LIMIT; i++) answers.push(await call());
  expect(answers.map((res) => res.statusCode)).toEqual([...Array<number>(LIMIT).fill(okStatus), 429]);
  return { first: answers[0]!, refused: answers[LIMIT]! };
}

function expectConvention(first: LightMyRequestResponse, refused: LightMyRequestResponse, policy: string) {
  expect(readFields(first)).toMatchObject({ name: policy, quota: LIMIT, window: 60, remaining: LIMIT - 1 });
  expect(readFields(first).reset).toBeGreaterThan(0);
  expect(readFields(refused)).toMatchObject({ name: policy, quota: LIMIT, window: 60, remaining: 0 });
  const retryAfter = Number(refused.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(first.headers['retry-after']).toBeUndefined();
}

describe('rate-limit fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_PER_MINUTE: String(LIMIT),
        ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        IMAGE_RATE_LIMIT_PER_MINUTE: String(LIMIT),
        RECORDER_RATE_LIMIT_PER_MINUTE: String(LIMIT),
      },
      overrides: { speech: new FakeSpeech() },
    });
  });
  afterAll(() => t?.close());

  it('/v1 sends RateLimit-Policy and RateLimit on every answer, and Retry-After on its 429', async () => {
    const { key } = await t.newAccount();
    const { first, refused } = await exhaust(() => t.request({ method: 'GET', url: '/v1/collections', key }), 200);
    expectConvention(first, refused, 'v1');
    expect(refused.json().error.code).toBe('rate_limited');
  });

  it('the agent API sends them on its unpaid answers (402) and on its 429', async () => {
    const client = '10.30.0.1';
    const generate = () =>
      t.app.inject({
        method: 'POST',
        url: '/api/entities/generate',
        remoteAddress: client,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(validBody()),
      });
    const { first, refused } = await exhaust(generate, 402);
    expectConvention(first, refused, 'unpaid');
    expect(refused.json().status).toBe('rate_limited');
  });

  it('MCP sends them on its HTTP answers and on its 429', async () => {
    const client = '10.30.0.2';
    const list = () =>
      t.app.inject({
        method: 'POST',
        url: '/mcp',
        remoteAddress: client,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    const { first, refused } = await exhaust(list, 200);
    expectConvention(first, refused, 'mcp');
  });

  it('the public pages limited per address send them too: play-link and profile cards, the recorder', async () => {
    const from = (client: string, url: string) => () => t.app.inject({ url, remoteAddress: client });
    for (const [client, url, policy] of [
      ['10.30.0.3', '/p/AAAAAAAAAAAAAAAA/card.png', 'images'],
      ['10.30.0.4', '/e/no-such-entity/card.png', 'profile-images'],
      ['10.30.0.5', '/r/AAAAAAAAAAAAAAAAAAAAAA', 'recorder'],
    ] as const) {
      const { first, refused } = await exhaust(from(client, url), 404);
      expectConvention(first, refused, policy);
    }
  });

  it('SCIM sends them on its answers and on its 429', async () => {
    const { token } = await newScimOrg(t);
    const { first, refused } = await exhaust(() => scim(t, token, 'GET', '/Users'), 200);
    expectConvention(first, refused, 'scim');
  });
});

describe('the API documents declare the fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t?.close());

  type Responses = Record<string, { headers?: Record<string, unknown> }>;
  const headerNames = (responses: Responses, status: string) => Object.keys(responses[status]?.headers ?? {});

  it('/v1: on every operation, 429 with Retry-After; the old headers are gone', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/openapi.json' });
    const text = res.body;
    expect(text).not.toMatch(/RateLimit-(Limit|Remaining|Reset)|X-RateLimit/i);
    const document = res.json<{ paths: Record<string, Record<string, { responses: Responses }>> }>();
    const list = document.paths['/v1/collections']!.get!.responses;
    expect(headerNames(list, '200')).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
    expect(headerNames(list, '429')).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'Retry-After']));
  });

  it('the agent API: on the unpaid 402 and on the 429 with Retry-After', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { responses: Responses }>>;
    }>();
    const generate = document.paths['/api/entities/generate']!.post!.responses;
    expect(headerNames(generate, '402')).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
    expect(headerNames(generate, '429')).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit', 'Retry-After']));
  });
});
