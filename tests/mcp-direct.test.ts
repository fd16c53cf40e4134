/**
 * A single `tools/call` is answered without the SDK's per-request server (direct-call.ts); the
 * answer must be the SDK's, byte for byte. The SDK still answers a batch, so the same call sent
 * as a batch of one is the reference (the transport answers a batch's lone response as a bare
 * object): its body and content type must be the single call's, for every tool with valid and invalid input, paid and unpaid. An unpaid generate_entity creates a
 * new payment intent each time, so there the intent's own random values are masked; everything
 * else (every key, its order, every other value) must match.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerToolCallDirectly } from '../src/features/mcp/direct-call.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { confirmSandbox, publishEntity, validBody } from './helpers/entities.js';
import { FakeSpeech } from './helpers/fake-speech.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' }, overrides: { speech: new FakeSpeech() } });
});
afterAll(async () => {
  await t?.close();
});

const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const toolCall = (name: string, args: unknown, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
});

async function post(payload: unknown) {
  const res = await t.app.inject({ method: 'POST', url: '/mcp', headers, payload: JSON.stringify(payload) });
  expect(res.statusCode).toBe(200);
  return { body: res.body, contentType: res.headers['content-type'] };
}

/** The single call's answer and the SDK's answer to it as a batch of one (the SDK answers a lone response unwrapped). */
async function bothAnswers(message: unknown): Promise<{ direct: string; sdk: string }> {
  const direct = await post(message);
  const batch = await post([message]);
  expect(direct.contentType).toBe(batch.contentType);
  return { direct: direct.body, sdk: batch.body };
}

async function expectSameAnswer(message: unknown): Promise<string> {
  const { direct, sdk } = await bothAnswers(message);
  expect(direct).toBe(sdk);
  return direct;
}

/** Whether the single call is one the direct path answers (rather than handing it to the SDK). */
const takenDirectly = async (message: unknown) =>
  (await answerToolCallDirectly(t.deps, { address: '192.0.2.1' }, headers, message)) !== null;

describe('a single MCP tool call answered directly', () => {
  it('get_entity: a published profile, an unknown slug, and an invalid slug answer what the SDK answers', async () => {
    const body = validBody();
    const { paid } = await publishEntity(t, body);
    const slug = new URL(paid.json<{ entity: { profile_url: string } }>().entity.profile_url).pathname.split('/')[2] as string;
    const found = toolCall('get_entity', { slug });
    expect(JSON.parse(await expectSameAnswer(found)).result.structuredContent).toMatchObject({ name: body.name });
    expect(await takenDirectly(found)).toBe(true);

    const missing = toolCall('get_entity', { slug: 'no-such-agent-here' });
    expect(JSON.parse(await expectSameAnswer(missing)).result).toMatchObject({
      isError: true,
      structuredContent: { status: 'not_found' },
    });
    expect(await takenDirectly(missing)).toBe(true);

    const invalid = toolCall('get_entity', { slug: '' });
    expect(JSON.parse(await expectSameAnswer(invalid)).result.content[0].text).toContain('Input validation error');
  });

  it('hear_play_link: a foreign link and an invalid URL answer what the SDK answers', async () => {
    const foreign = toolCall('hear_play_link', { url: 'https://elsewhere.example/p/abcdefgh' });
    expect(JSON.parse(await expectSameAnswer(foreign)).result.structuredContent).toMatchObject({ status: 'not_found' });
    expect(await takenDirectly(foreign)).toBe(true);
    await expectSameAnswer(toolCall('hear_play_link', { url: 'not a url' }));
  });

  it('generate_entity: an invalid request, a wrong argument type and an unknown tool answer what the SDK answers', async () => {
    const invalid = toolCall('generate_entity', { request: { name: 'x' } });
    expect(JSON.parse(await expectSameAnswer(invalid)).result.structuredContent).toMatchObject({ status: 'invalid_request' });
    expect(await takenDirectly(invalid)).toBe(true);
    await expectSameAnswer(toolCall('generate_entity', { request: 'not an object' }));
    await expectSameAnswer(toolCall('no_such_tool', {}));
  });

  it('generate_entity unpaid: the payment instruction and MPP challenges, the same bytes but for the new intent’s own values', async () => {
    const call = toolCall('generate_entity', { request: validBody() });
    expect(await takenDirectly(call)).toBe(true);
    const { direct, sdk } = await bothAnswers(call);
    const instruction = (answer: string) => JSON.parse(answer).result.structuredContent.mpp_instruction;
    expect(JSON.parse(direct).result).toMatchObject({ isError: true, structuredContent: { status: 'payment_required' } });
    // The values each new intent draws afresh, found in the answers themselves, then masked.
    const mask = (answer: string) => {
      const challenge = JSON.parse(answer).result._meta['org.paymentauth/payment-required'].challenges[0];
      const fresh = [
        instruction(answer).reference,
        instruction(answer).address,
        challenge.id,
        challenge.opaque,
        challenge.expires,
        challenge.meta.request,
        ...Object.values(instruction(answer)).filter((value) => typeof value === 'string' && /\d{4}-\d\d-\d\dT/.test(value)),
      ].filter((value): value is string => typeof value === 'string' && value.length > 0);
      let masked = answer;
      for (const value of fresh.sort((a, b) => b.length - a.length)) masked = masked.split(value).join('…');
      return masked;
    };
    expect(instruction(direct).reference).not.toBe(instruction(sdk).reference);
    expect(mask(direct)).toBe(mask(sdk));
  });

  it('generate_entity paid: the published profile with its receipt, as the SDK answers the same paid call', async () => {
    const request = validBody();
    const unpaid = JSON.parse((await post(toolCall('generate_entity', { request }))).body);
    const instruction = unpaid.result.structuredContent.mpp_instruction;
    expect((await confirmSandbox(t, instruction)).statusCode).toBe(200);
    const paid = toolCall('generate_entity', { request, payment_reference: instruction.reference });
    expect(await takenDirectly(paid)).toBe(true);
    const answer = await expectSameAnswer(paid);
    expect(JSON.parse(answer).result).toMatchObject({ structuredContent: { status: 'published', payment_status: 'paid' } });
    expect(JSON.parse(answer).result._meta['org.paymentauth/receipt']).toBeTruthy();
  });

  it('leaves batches, other methods and headers the transport refuses to the SDK', async () => {
    const call = toolCall('get_entity', { slug: 'no-such-agent-here' });
    expect(await answerToolCallDirectly(t.deps, { address: '192.0.2.1' }, headers, [call])).toBeNull();
    expect(await answerToolCallDirectly(t.deps, { address: '192.0.2.1' }, headers, { ...call, method: 'tools/list' })).toBeNull();
    const refused = [
      { ...headers, accept: 'application/json' },
      { ...headers, 'content-type': 'text/plain' },
      { ...headers, 'mcp-protocol-version': '1999-01-01' },
    ];
    for (const each of refused) expect(await answerToolCallDirectly(t.deps, { address: '192.0.2.1' }, each, call)).toBeNull();
    // What the SDK answers then, through the route: the transport's 406.
    const res = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { ...headers, accept: 'application/json' },
      payload: JSON.stringify(call),
    });
    expect(res.statusCode).toBe(406);
  });
});
