/**
 * The unpaid-request budget holds for MCP: every tool call takes a unit of the client's budget,
 * the one `POST /api/entities/generate` draws from, so a JSON-RPC batch of 100 `generate_entity`
 * calls creates at most the limit's worth of payment requests, the calls past it answer the
 * rate-limit refusal with its retry time, and HTTP and MCP calls share one count, across
 * processes too when REDIS_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { validBody } from './helpers/entities.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { redisAvailable, startTestRedis, type TestRedis } from './helpers/redis.js';

const LIMIT = 30;
const env = { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: String(LIMIT) };
/** A client address of this run alone, so counts left in a shared Redis by another run never meet it. */
const randomClient = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

interface ToolResult {
  isError?: boolean;
  structuredContent?: { status?: string; retry_after?: number; message?: string };
}

/** One `POST /mcp` carrying a JSON-RPC batch of `calls` tool calls; the results by id. */
async function mcpBatch(t: TestApp, client: string, calls: { name: string; arguments: unknown }[]): Promise<ToolResult[]> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    remoteAddress: client,
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    payload: JSON.stringify(calls.map((params, id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params }))),
  });
  expect(res.statusCode).toBe(200);
  const answers = res.json<{ id: number; result?: ToolResult; error?: unknown }[]>();
  expect(answers).toHaveLength(calls.length);
  return answers.sort((a, b) => a.id - b.id).map((answer) => answer.result ?? { isError: true });
}

const generateCalls = (n: number) =>
  Array.from({ length: n }, () => ({ name: 'generate_entity', arguments: { request: validBody() } }));

const statuses = (results: ToolResult[]) => results.map((result) => result.structuredContent?.status);
const count = (list: unknown[], value: unknown) => list.filter((item) => item === value).length;

async function paymentRows(t: TestApp): Promise<{ requests: number; intents: number }> {
  const db = t.deps.db.kysely;
  const rows = async (table: 'entity_payment_requests' | 'sandbox_payment_intents') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { requests: await rows('entity_payment_requests'), intents: await rows('sandbox_payment_intents') };
}

const generateOverHttp = (t: TestApp, client: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/entities/generate',
    remoteAddress: client,
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify(validBody()),
  });

describe('MCP tool calls and the unpaid-request limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env, overrides: { speech: new FakeSpeech() } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a batch of 100 generate_entity calls creates at most the limit of payment requests; the rest are refused with a retry time', async () => {
    const results = await mcpBatch(t, randomClient(), generateCalls(100));
    expect(count(statuses(results), 'payment_required')).toBe(LIMIT);
    const refused = results.filter((result) => result.structuredContent?.status === 'rate_limited');
    expect(refused).toHaveLength(100 - LIMIT);
    for (const result of refused) {
      expect(result.isError).toBe(true);
      expect(result.structuredContent?.retry_after).toBeGreaterThanOrEqual(1);
      expect(result.structuredContent?.retry_after).toBeLessThanOrEqual(60);
    }
    expect(await paymentRows(t)).toEqual({ requests: LIMIT, intents: LIMIT });
  });

  it('HTTP requests and MCP calls from one client share one budget', async () => {
    const client = randomClient();
    for (let i = 0; i < 20; i++) expect((await generateOverHttp(t, client)).statusCode).toBe(402);
    const results = await mcpBatch(t, client, generateCalls(20));
    expect(count(statuses(results), 'payment_required')).toBe(LIMIT - 20);
    expect(count(statuses(results), 'rate_limited')).toBe(20 - (LIMIT - 20));
    const http = await generateOverHttp(t, client);
    expect(http.statusCode).toBe(429);
    expect(Number(http.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('read tools count too, so a batch of reads cannot be used to outrun the limit', async () => {
    const client = randomClient();
    const reads = Array.from({ length: 40 }, () => ({ name: 'get_entity', arguments: { slug: 'no-such-agent-here' } }));
    const results = await mcpBatch(t, client, reads);
    expect(count(statuses(results), 'not_found')).toBe(LIMIT);
    expect(count(statuses(results), 'rate_limited')).toBe(40 - LIMIT);
    expect((await generateOverHttp(t, client)).statusCode).toBe(429);
  });

  it('another client keeps its own budget', async () => {
    expect((await generateOverHttp(t, randomClient())).statusCode).toBe(402);
  });
});

// redis-server is a Debian package that CI installs and starts (REDIS_TEST_URL); a developer
// machine without it skips only this block.
describe.skipIf(!redisAvailable())('MCP and HTTP share the budget across processes with REDIS_URL', () => {
  let redis: TestRedis;
  let apps: TestApp[];
  beforeAll(async () => {
    redis = await startTestRedis();
    const options = { env: { ...env, REDIS_URL: redis.url }, overrides: { speech: new FakeSpeech() } };
    apps = [await createTestApp(options), await createTestApp(options)];
  });
  afterAll(async () => {
    for (const app of apps ?? []) await app.close();
    await redis?.close();
  });

  it('an MCP batch on one process and HTTP requests on another draw from one count', async () => {
    const client = randomClient();
    const [first, second] = apps as [TestApp, TestApp];
    for (let i = 0; i < 10; i++) expect((await generateOverHttp(second, client)).statusCode).toBe(402);
    const results = await mcpBatch(first, client, generateCalls(100));
    expect(count(statuses(results), 'payment_required')).toBe(LIMIT - 10);
    expect((await generateOverHttp(second, client)).statusCode).toBe(429);
  });
});
