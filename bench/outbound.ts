/**
 * Outbound client benchmark (loopback only): `npm run bench -- outbound [N]`.
 * POSTs to one receiver at concurrency 8, interleaved rounds of:
 * - a new connection per request (a fresh undici Agent each time, what a client without a
 *   connection pool does; in production each would also be a TLS handshake),
 * - `sendOutbound`, which keeps connections alive per (origin, checked address).
 * Prints requests per second and the ratio.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { sendOutbound } from '../src/integrations/outbound-http.js';

const N = Number(process.argv[2] ?? 2000);
const CONCURRENCY = 8;
const ROUNDS = 3;

const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end('ok'));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
const body = JSON.stringify({ type: 'recording.completed', data: { user_id: 'u', first_name: 'Ada' } });
const headers = { 'content-type': 'application/json' };

async function run(send: () => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) await send();
    }),
  );
  return N / ((performance.now() - started) / 1000);
}

const freshConnection = async () => {
  const agent = new Agent({ keepAliveTimeout: 1, pipelining: 0 });
  try {
    const res = await request(url, { method: 'POST', headers, body, dispatcher: agent });
    await res.body.text();
  } finally {
    await agent.destroy();
  }
};
const pooled = () => sendOutbound({ url, headers, body, allowPrivate: true });

const results = { fresh: [] as number[], pooled: [] as number[] };
await run(pooled); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  results.fresh.push(await run(freshConnection));
  results.pooled.push(await run(pooled));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const fresh = median(results.fresh);
const kept = median(results.pooled);
console.log(`outbound POSTs to one receiver, ${N} per round, concurrency ${CONCURRENCY}, median of ${ROUNDS} interleaved rounds`);
console.log(
  `| client | req/s |\n|---|---|\n| new connection per request | ${fresh.toFixed(0)} |\n| sendOutbound (kept alive) | ${kept.toFixed(0)} |`,
);
console.log(`ratio: ${(kept / fresh).toFixed(2)}x`);
server.closeAllConnections();
server.close();
