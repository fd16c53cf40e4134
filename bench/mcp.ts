/**
 * An unpaid MCP `generate_entity` call against the HTTP 402 it stands for (npm run bench -- mcp).
 * Both answer the same thing: a new payment intent and the spec's instruction (MCP as the tool's
 * error result, with the MPP challenges in `_meta`; and, for a client that declared MPP's MCP
 * transport at initialize, as JSON-RPC error -32042 carrying them). The built server (`benchApp`: dist/main.js,
 * SQLite, sandbox payments) runs in its own process, autocannon in this one. BENCH_ROUNDS (default
 * 5) interleaved rounds of BENCH_SECONDS (default 5) per side, CONNECTIONS at a time; the table
 * gives each side's median requests/s, p50/p99 latency and server CPU time per request (utime +
 * stime from /proc/<pid>/stat over the round, divided by its requests), the ratio, and the
 * 1-minute load average. BENCH_APP_ROOT benches another checkout's built server (the "before").
 */
import { benchApp, cpuMsOf, loadAverage, measure, type Measurement, median } from './lib.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 10;

const request = {
  name: 'Bench Meeting Agent',
  entity_type: 'ai_agent',
  description: 'An agent that books meetings for small teams.',
  operator: 'Example Robotics',
  visibility: 'public',
};

const app = await benchApp(async () => undefined, { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000000' });

const mcpHeaders = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};
const toolCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'generate_entity', arguments: { request } },
});

/** The session id an MPP client gets for declaring `capabilities.experimental.payment` at initialize. */
async function paymentSession(): Promise<string> {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: mcpHeaders,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: { experimental: { payment: { methods: { sandbox: { intents: ['charge'] } } } } },
        clientInfo: { name: 'bench', version: '1.0.0' },
      },
    }),
  });
  const id = res.headers.get('mcp-session-id');
  if (!id) throw new Error(`initialize gave no session id: ${res.status} ${await res.text()}`);
  return id;
}

const sides = {
  'HTTP POST /api/entities/generate → 402': {
    url: `${app.url}/api/entities/generate`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(request),
    check: (status: number, body: string) => status === 402 && body.includes('mpp_instruction'),
  },
  'MCP tools/call generate_entity (unpaid)': {
    url: `${app.url}/mcp`,
    // What an MCP client sends on a stateless Streamable HTTP server (no session id).
    headers: mcpHeaders,
    body: toolCall,
    check: (status: number, body: string) =>
      status === 200 && body.includes('mpp_instruction') && body.includes('"isError":true'),
  },
  // A client that declared MPP's MCP transport: the same call answered as JSON-RPC error -32042.
  'MCP generate_entity, MPP error form': {
    url: `${app.url}/mcp`,
    headers: { ...mcpHeaders, 'mcp-session-id': await paymentSession() },
    body: toolCall,
    check: (status: number, body: string) => status === 200 && body.includes('"code":-32042'),
  },
};

// Each side answers what it should before it is timed (and its first-request costs are paid).
for (const [name, side] of Object.entries(sides)) {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(side.url, { method: 'POST', headers: side.headers, body: side.body });
    const text = await res.text();
    if (!side.check(res.status, text)) throw new Error(`${name} answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

type Round = Measurement & { cpuMsPerRequest: number; load: number };
const rounds = new Map<string, Round[]>(Object.keys(sides).map((name) => [name, []]));
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved, and the order flips each round, so a load spike on the machine falls on both sides.
    const order = round % 2 === 0 ? Object.entries(sides) : Object.entries(sides).reverse();
    for (const [name, side] of order) {
      const cpuBefore = cpuMsOf(app.serverPid);
      const result = await measure(name, {
        url: side.url,
        method: 'POST',
        headers: side.headers,
        body: side.body,
        connections: CONNECTIONS,
        seconds: SECONDS,
      });
      const requests = result.rps * SECONDS;
      rounds
        .get(name)
        ?.push({ ...result, cpuMsPerRequest: (cpuMsOf(app.serverPid) - cpuBefore) / requests, load: loadAverage() });
    }
  }
} finally {
  await app.close();
}

const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(10);
console.log(
  `\nMCP unpaid call vs HTTP 402: medians of ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections ` +
    `(built server, SQLite, sandbox; node ${process.version})` +
    (process.env.BENCH_APP_ROOT ? `; server from ${process.env.BENCH_APP_ROOT}` : ''),
);
console.log(
  `${'call'.padEnd(44)}${'req/s'.padStart(10)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}${'cpu ms/req'.padStart(12)}${'load'.padStart(10)}  errors`,
);
const summary = [...rounds].map(([name, list]) => {
  const row = {
    name,
    rps: median(list.map((r) => r.rps)),
    p50: median(list.map((r) => r.p50)),
    p99: median(list.map((r) => r.p99)),
    cpu: median(list.map((r) => r.cpuMsPerRequest)),
    load: median(list.map((r) => r.load)),
    // The 402 is the answer wanted, so non-2xx statuses are not errors here (the checks above read the bodies).
    errors: list.reduce((sum, r) => sum + r.errors, 0),
  };
  console.log(
    `${name.padEnd(44)}${fmt(row.rps)}${fmt(row.p50, 1)}${fmt(row.p99, 1)}${fmt(row.cpu, 2).padStart(12)}${fmt(row.load, 2)}  ${row.errors}`,
  );
  return row;
});
const [http, ...mcps] = summary as [(typeof summary)[0], ...(typeof summary)[0][]];
for (const mcp of mcps) {
  console.log(
    `${mcp.name} / HTTP: ${(http.rps / mcp.rps).toFixed(2)}x the time per request (req/s), ${(mcp.cpu / http.cpu).toFixed(2)}x the server CPU per request`,
  );
}
