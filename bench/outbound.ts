/**
 * Outbound client benchmark (loopback only): `npm run bench -- outbound [N]`.
 * POSTs to one receiver (a bare node:http server in its own process) at concurrency 8,
 * BENCH_ROUNDS interleaved rounds (default 5) of:
 * - the baseline: a new connection per request (a fresh undici Agent each time, what a client
 *   without a connection pool does; in production each would also be a TLS handshake),
 * - `sendOutbound`, which keeps connections alive per (origin, checked address).
 * The client under test runs in this process: its CPU time per request is this process's
 * (the receiver's is left out), beside the median requests per second, the ratio and the load.
 */
import { Agent, request } from 'undici';
import { sendOutbound } from '../src/integrations/outbound-http.js';
import { bareServer, benchRounds, cpuSecondsWithChildren, loadAverage, median } from './lib.js';

const N = Number(process.argv[2] ?? 2000);
const CONCURRENCY = 8;
const ROUNDS = benchRounds();

const receiver = await bareServer({ status: 200, headers: {}, body: 'ok' });
const url = `${receiver.url}/hook`;
const body = JSON.stringify({ type: 'recording.completed', data: { user_id: 'u', first_name: 'Ada' } });
const headers = { 'content-type': 'application/json' };

interface Round {
  rps: number;
  cpuMsPerRequest: number;
  load: number;
}

async function run(send: () => Promise<unknown>): Promise<Round> {
  let next = 0;
  const cpuBefore = cpuSecondsWithChildren();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < N) await send();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { rps: N / seconds, cpuMsPerRequest: ((cpuSecondsWithChildren() - cpuBefore) * 1000) / N, load: loadAverage() };
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

const results = { fresh: [] as Round[], pooled: [] as Round[] };
try {
  await run(pooled); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    results.fresh.push(await run(freshConnection));
    results.pooled.push(await run(pooled));
  }
} finally {
  await receiver.close();
}
const of = (rounds: Round[], pick: (round: Round) => number) => median(rounds.map(pick));
const fresh = of(results.fresh, (round) => round.rps);
console.log(
  `outbound POSTs to one receiver, ${N} per round, concurrency ${CONCURRENCY}, medians of ${ROUNDS} interleaved rounds (node ${process.version})`,
);
console.log('| client | req/s | ratio | client cpu ms/req | load 1m |\n|---|---|---|---|---|');
for (const [name, rounds] of [
  ['new connection per request (baseline)', results.fresh],
  ['sendOutbound (kept alive)', results.pooled],
] as const) {
  const rps = of(rounds, (round) => round.rps);
  console.log(
    `| ${name} | ${rps.toFixed(0)} | ${(rps / fresh).toFixed(2)} | ${of(rounds, (round) => round.cpuMsPerRequest).toFixed(3)} | ${of(rounds, (round) => round.load).toFixed(2)} |`,
  );
}
