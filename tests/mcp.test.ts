/**
 * The remote MCP server through the official SDK's own client over real HTTP: the tools are
 * listed; generate_entity answers the payment instruction, then (after paying the sandbox
 * intent) publishes; get_entity reads the profile back; hear_play_link resolves a recorded
 * person's play link; the schema resource reads; the server card says where the server is.
 */
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpClient } from 'mppx/mcp/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandbox } from '../src/sdk/mpp-sandbox.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { confirmSandbox, validBody } from './helpers/entities.js';

let t: TestApp & { url: string };
let client: Client;

beforeAll(async () => {
  t = await startTestServer();
  client = new Client({ name: 'voicename-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
});
afterAll(async () => {
  await client?.close();
  await t?.close();
});

type Structured = Record<string, unknown>;

describe('MCP server', () => {
  it('lists its tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['generate_entity', 'get_entity', 'hear_play_link']);
  });

  it('generate_entity: the payment instruction, then the published profile once paid; get_entity reads it', async () => {
    const request = validBody({ name: `Orbit MCP ${Date.now()}` });
    const unpaid = await client.callTool({ name: 'generate_entity', arguments: { request } });
    expect(unpaid.isError).toBe(true);
    const instruction = (unpaid.structuredContent as Structured).mpp_instruction as {
      reference: string;
      address: string;
      amount: string;
      currency: string;
    };
    expect(unpaid.structuredContent).toMatchObject({ status: 'payment_required' });
    expect(instruction).toMatchObject({ amount: '1.00', currency: 'AUD' });

    expect((await confirmSandbox(t, instruction)).statusCode).toBe(200);
    const paid = await client.callTool({
      name: 'generate_entity',
      arguments: { request, payment_reference: instruction.reference },
    });
    expect(paid.isError).toBeFalsy();
    const body = paid.structuredContent as {
      status: string;
      payment_status: string;
      entity: { slug: string; profile_url: string };
    };
    expect(body).toMatchObject({ status: 'published', payment_status: 'paid' });

    const slug = new URL(body.entity.profile_url).pathname.split('/')[2] as string;
    const read = await client.callTool({ name: 'get_entity', arguments: { slug } });
    expect(read.structuredContent).toMatchObject({ name: request.name, slug: decodeURIComponent(slug) });
    const missing = await client.callTool({ name: 'get_entity', arguments: { slug: 'no-such-agent-here' } });
    expect(missing.isError).toBe(true);
  });

  it('generate_entity with an MPP client: the payment-required result carries the challenge; the wrapped client pays and gets a receipt', async () => {
    const request = validBody({ name: `Orbit MCP Standard ${Date.now()}` });
    const unpaid = await client.callTool({ name: 'generate_entity', arguments: { request } });
    const required = (unpaid._meta as Record<string, { challenges: { method: string; intent: string }[] }>)[
      'org.paymentauth/payment-required'
    ];
    expect(required?.challenges).toEqual([expect.objectContaining({ method: 'sandbox', intent: 'charge' })]);

    const paying = new Client({ name: 'voicename-mppx-test', version: '1.0.0' });
    await paying.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    try {
      McpClient.wrap(paying, { methods: [sandbox()] });
      const paid = (await paying.callTool({ name: 'generate_entity', arguments: { request } })) as unknown as {
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
    } finally {
      await paying.close();
    }
  });

  it('generate_entity refuses an invalid request with the API’s own lists', async () => {
    const res = await client.callTool({ name: 'generate_entity', arguments: { request: { name: 'x' } } });
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ status: 'invalid_request' });
    expect((res.structuredContent as { missing: string[] }).missing).toContain('entity_type');
  });

  it('hear_play_link resolves a recorded name', async () => {
    const { key } = await t.newAccount();
    const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'MCP' } })).json<{
      id: string;
    }>();
    const user = (
      await t.request({
        method: 'POST',
        url: `/v1/collections/${collection.id}/users`,
        key,
        json: { email: 'm@example.com', first_name: 'Siobhán', phonetic_spelling: 'shi-VAWN' },
      })
    ).json<{ id: string }>();
    const recorded = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    const playLink = recorded.json<{ play_link: string }>().play_link;
    const res = await client.callTool({ name: 'hear_play_link', arguments: { url: playLink } });
    expect(res.structuredContent).toMatchObject({ display_name: 'Siobhán', phonetic_spelling: 'shi-VAWN', play_link: playLink });
    const foreign = await client.callTool({ name: 'hear_play_link', arguments: { url: 'https://elsewhere.example/p/abcdefgh' } });
    expect(foreign.isError).toBe(true);
  });

  it('reads the schema resource, publishes a server card, and refuses GET streams', async () => {
    const { resources } = await client.listResources();
    const schemaUri = resources[0]?.uri as string;
    const schema = await client.readResource({ uri: schemaUri });
    expect(JSON.parse((schema.contents[0] as { text: string }).text)).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
    });
    const card = await fetch(`${t.url}/.well-known/mcp/server-card.json`);
    expect(await card.json()).toMatchObject({ transport: { type: 'streamable-http', url: `${t.url}/mcp` } });
    expect((await fetch(`${t.url}/mcp`)).status).toBe(405);
  });
});
