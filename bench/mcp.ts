/**
 * The agent API's paid paths side by side, in one run on one server (loopback, sandbox
 * payments): median of 20 of
 * - HTTP: `POST /api/entities/generate` unpaid (402), then the paid retry (200, publishing) with
 *   the spec's reference (`Payment-Authorization: mpp; reference=…`);
 * - HTTP with the standard MPP credential (`Authorization: Payment …` answering the 402's
 *   challenge): the same two calls;
 * - MCP: `tools/call generate_entity` unpaid (the payment instruction), then with
 *   `payment_reference` (the published profile), through the official SDK client;
 * the sandbox confirmation between the two is not timed. Run: npm run bench -- mcp
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Challenge, Credential } from 'mppx';
import { startTestServer } from '../tests/helpers/app.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const body = (n: number, via: string) => ({
  name: `Bench ${via} ${Date.now()} ${n}`,
  entity_type: 'ai_agent',
  description: 'An agent that books meetings for small teams.',
  operator: 'Example Robotics',
  visibility: 'public',
});

const server = await startTestServer({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' } });
const confirm = (instruction: { reference: string; address: string }) =>
  fetch(`${server.url}/api/sandbox/payment-intents/${instruction.reference}/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_secret: instruction.address }),
  });
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));

const times = {
  httpUnpaid: [] as number[],
  httpPaid: [] as number[],
  standardUnpaid: [] as number[],
  standardPaid: [] as number[],
  mcpUnpaid: [] as number[],
  mcpPaid: [] as number[],
};
const post = (request: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/entities/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(request),
  });
for (let n = 0; n < ROUNDS; n++) {
  const request = body(n, 'http');
  let started = performance.now();
  const unpaid = await fetch(`${server.url}/api/entities/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  const instruction = ((await unpaid.json()) as { mpp_instruction: { reference: string; address: string } }).mpp_instruction;
  times.httpUnpaid.push(performance.now() - started);
  await confirm(instruction);
  started = performance.now();
  const paid = await fetch(`${server.url}/api/entities/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'payment-authorization': `mpp; reference="${instruction.reference}"` },
    body: JSON.stringify(request),
  });
  if (paid.status !== 200) throw new Error(`HTTP paid path answered ${paid.status}`);
  await paid.arrayBuffer();
  times.httpPaid.push(performance.now() - started);

  const standardRequest = body(n, 'standard');
  started = performance.now();
  const challenged = await post(standardRequest);
  const challenge = Challenge.deserialize(challenged.headers.get('www-authenticate') ?? '');
  const standardInstruction = ((await challenged.json()) as { mpp_instruction: { reference: string; address: string } })
    .mpp_instruction;
  times.standardUnpaid.push(performance.now() - started);
  await confirm(standardInstruction);
  const authorization = Credential.serialize({ challenge, payload: { reference: standardInstruction.reference } });
  started = performance.now();
  const standardPaid = await post(standardRequest, { authorization });
  if (standardPaid.status !== 200) throw new Error(`standard paid path answered ${standardPaid.status}`);
  await standardPaid.arrayBuffer();
  times.standardPaid.push(performance.now() - started);

  const mcpRequest = body(n, 'mcp');
  started = performance.now();
  const mcpUnpaid = await client.callTool({ name: 'generate_entity', arguments: { request: mcpRequest } });
  times.mcpUnpaid.push(performance.now() - started);
  const mcpInstruction = (mcpUnpaid.structuredContent as { mpp_instruction: { reference: string; address: string } })
    .mpp_instruction;
  await confirm(mcpInstruction);
  started = performance.now();
  const mcpPaid = await client.callTool({
    name: 'generate_entity',
    arguments: { request: mcpRequest, payment_reference: mcpInstruction.reference },
  });
  if (mcpPaid.isError) throw new Error('MCP paid call failed');
  times.mcpPaid.push(performance.now() - started);
}
await client.close();
await server.close();

const row = (label: string, values: number[], baseline: number[]) =>
  console.log(`| ${label} | ${median(values).toFixed(1)} | ${(median(values) / median(baseline)).toFixed(2)} |`);
console.log(`agent paid path, median of ${ROUNDS} (node ${process.version}, sandbox, SQLite)`);
console.log('| call | ms | ratio to HTTP |\n|---|---|---|');
row('HTTP unpaid 402', times.httpUnpaid, times.httpUnpaid);
row('HTTP unpaid 402 (same call, read as an MPP challenge)', times.standardUnpaid, times.httpUnpaid);
row('MCP generate_entity unpaid (instruction)', times.mcpUnpaid, times.httpUnpaid);
row('HTTP paid 200, reference (publish: speech, MP3, rows)', times.httpPaid, times.httpPaid);
row('HTTP paid 200, standard credential', times.standardPaid, times.httpPaid);
row('MCP generate_entity paid (publish)', times.mcpPaid, times.httpPaid);
