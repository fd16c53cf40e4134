/**
 * MPP's own MCP form of a payment challenge (draft-payment-transport-mcp), through the official
 * MCP SDK client over real HTTP: a client that declares `capabilities.experimental.payment` at
 * initialize gets JSON-RPC error -32042 with the challenges in `data` (-32043 when its credential
 * did not pay, -32602 when it could not be read), and `mppx`'s McpClient pays from that error; a
 * client that declares nothing keeps the error tool result with the same challenges in `_meta`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { McpClient } from 'mppx/mcp/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../src/sdk/mpp-sandbox.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { validBody } from './helpers/entities.js';

let t: TestApp & { url: string };
const clients: Client[] = [];

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

interface Challenge {
  id: string;
  method: string;
  intent: string;
  request: { methodDetails: { reference: string } };
}
interface PaymentData {
  httpStatus: number;
  challenges: Challenge[];
  problem: { type: string; title: string; status: number; detail: string; challengeId: string };
}

/** An MCP SDK client connected to /mcp; `payment` is what it declares under capabilities.experimental. */
async function connect(payment?: Record<string, unknown>): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'voicename-payment-errors-test', version: '1.0.0' },
    payment ? { capabilities: { experimental: { payment } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`));
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

const DECLARED = { methods: { sandbox: { intents: ['charge'] } } };

/** The JSON-RPC error a call fails with (the test fails if it does not). */
async function errorOf(call: Promise<unknown>): Promise<McpError & { data: PaymentData }> {
  const error = await call.then(
    () => null,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError & { data: PaymentData };
}

describe('MCP payment challenges in MPP’s error form', () => {
  it('a client that declares payment gets -32042 with the challenges; the server advertises its methods', async () => {
    const { client, transport } = await connect(DECLARED);
    expect(client.getServerCapabilities()?.experimental).toEqual({ payment: { methods: { sandbox: { intents: ['charge'] } } } });
    expect(transport.sessionId).toMatch(/^mpp1\./);

    const request = validBody({ name: `Orbit Error Form ${Date.now()}` });
    const error = await errorOf(client.callTool({ name: 'generate_entity', arguments: { request } }));
    expect(error.code).toBe(-32042);
    expect(error.data.httpStatus).toBe(402);
    expect(error.data.challenges).toEqual([expect.objectContaining({ method: 'sandbox', intent: 'charge', realm: '127.0.0.1' })]);
    expect(error.data.problem).toMatchObject({
      type: 'https://paymentauth.org/problems/payment-required',
      status: 402,
      challengeId: error.data.challenges[0]?.id,
    });
    // The free tools answer as before.
    const missing = await client.callTool({ name: 'get_entity', arguments: { slug: 'no-such-agent-here' } });
    expect(missing.isError).toBe(true);
  });

  it('mppx’s McpClient pays from the error and gets the profile and its receipt', async () => {
    const { client } = await connect(DECLARED);
    McpClient.wrap(client, { methods: [sandbox()] });
    const paid = (await client.callTool({
      name: 'generate_entity',
      arguments: { request: validBody({ name: `Orbit Error Paid ${Date.now()}` }) },
    })) as unknown as {
      isError?: boolean;
      structuredContent: { status: string; receipt: { transaction_id: string } };
      receipt?: { method: string; reference: string; status: string };
    };
    expect(paid.isError).toBeFalsy();
    expect(paid.structuredContent.status).toBe('published');
    expect(paid.receipt).toMatchObject({
      method: 'sandbox',
      status: 'success',
      reference: paid.structuredContent.receipt.transaction_id,
    });
  });

  it('a credential that did not pay is -32043 with a challenge to pay; one that cannot be read is -32602', async () => {
    const { client } = await connect(DECLARED);
    const request = validBody({ name: `Orbit Error Unpaid ${Date.now()}` });
    const first = await errorOf(client.callTool({ name: 'generate_entity', arguments: { request } }));
    const challenge = first.data.challenges[0] as Challenge;

    // The challenge's own sandbox intent, never confirmed: nothing was paid.
    const credential = { challenge, payload: { reference: challenge.request.methodDetails.reference } };
    const refused = await errorOf(
      client.callTool({ name: 'generate_entity', arguments: { request }, _meta: { 'org.paymentauth/credential': credential } }),
    );
    expect(refused.code).toBe(-32043);
    expect(refused.data.problem.type).toBe('https://paymentauth.org/problems/verification-failed');
    // The intent is still unpaid and valid, so the challenge to pay is the same one (the draft allows either).
    expect(refused.data.challenges).toEqual([expect.objectContaining({ method: 'sandbox', request: challenge.request })]);

    const malformed = await errorOf(
      client.callTool({ name: 'generate_entity', arguments: { request }, _meta: { 'org.paymentauth/credential': { nope: 1 } } }),
    );
    expect(malformed.code).toBe(-32602);
    expect(malformed.data.problem.type).toBe('https://paymentauth.org/problems/malformed-credential');
  });

  it('a client that declares nothing gets no session and the error tool result with the same challenges', async () => {
    const { client, transport } = await connect();
    expect(transport.sessionId).toBeUndefined();
    const result = await client.callTool({
      name: 'generate_entity',
      arguments: { request: validBody({ name: `Orbit Result Form ${Date.now()}` }) },
    });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ status: 'payment_required' });
    const required = (result._meta as Record<string, PaymentData>)['org.paymentauth/payment-required'];
    expect(required?.challenges).toEqual([expect.objectContaining({ method: 'sandbox', intent: 'charge' })]);
    expect(required?.problem.type).toBe('https://paymentauth.org/problems/payment-required');
  });

  it('a session id the server did not sign is no declaration; a batch of a declared session gets an error per paid call', async () => {
    const call = (id: number, name: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'generate_entity', arguments: { request: validBody({ name }) } },
    });
    const post = async (sessionId: string, body: unknown, version = '2025-11-25') => {
      const response = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': version,
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return response.json() as Promise<unknown>;
    };

    const { transport } = await connect(DECLARED);
    const signed = transport.sessionId as string;
    const forged = `${signed.slice(0, -4)}AAAA`;
    const unsigned = (await post(forged, call(1, `Orbit Forged ${Date.now()}`))) as { result?: { isError: boolean } };
    expect(unsigned.result?.isError).toBe(true);

    // Batches (protocol 2025-03-26) go through the SDK's own server: the same form there.
    const batch = (await post(
      signed,
      [call(1, `Orbit Batch A ${Date.now()}`), call(2, `Orbit Batch B ${Date.now()}`)],
      '2025-03-26',
    )) as {
      id: number;
      error?: { code: number; data: PaymentData };
    }[];
    expect(batch.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [1, -32042],
      [2, -32042],
    ]);
  });
});
