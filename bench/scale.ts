/**
 * Scaling out: the `.mp3` redirect and the batch of 100 play links served by one API process,
 * then by two (same database, `RUN_WORKER=false`), each loaded by its own client at once; the
 * ratio is the two processes' total requests/s over the single process's. Rounds alternate
 * (one, two, one, two; BENCH_ROUNDS, default 5) and each setup reports its median round, with
 * the servers' CPU time per request (/proc/<pid>/stat) and the 1-minute load average.
 * There is no bare baseline: the one-process setup is the reference, and what is measured is
 * how much a second process adds.
 *
 * The goal (>= 1.7x) needs a core per process plus the load generator's own: on a machine with
 * fewer than 4 cores the processes and the clients share them, and the ratio shows that limit
 * rather than the service's. The bench prints the core count beside the figure.
 * Run: npm run bench -- scale (BENCH_SECONDS per round, default 3).
 */
import os from 'node:os';
import {
  appInstance,
  benchAccount,
  benchApp,
  benchRounds,
  cpuSeconds,
  type LoadOptions,
  loadAverage,
  measure,
  median,
} from './lib.js';
import { seedPlayLinks } from './seed.js';

const ROUNDS = benchRounds();
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

let key = '';
let seeded = { collectionId: '', tokens: [] as string[], userIds: [] as string[] };
const first = await benchApp(async (deps) => {
  key = (await benchAccount(deps, 'bench@example.com')).key;
  seeded = await seedPlayLinks(deps, 1_000);
});

const second = await appInstance(first);

const auth = { authorization: `Bearer ${key}` };
const ids = seeded.userIds.slice(0, 100).join(',');
const scenarios: { name: string; path: string; connections: number; headers?: Record<string, string> }[] = [
  { name: '.mp3 redirect', path: `/p/${seeded.tokens[0]}.mp3`, connections: 50 },
  {
    name: 'batch of 100 play links',
    path: `/v1/play-links/batch?collection_id=${seeded.collectionId}&user_ids=${ids}`,
    connections: 10,
    headers: auth,
  },
];

const load = (url: string, scenario: (typeof scenarios)[number], connections: number): LoadOptions => ({
  url: `${url}${scenario.path}`,
  connections,
  seconds: SECONDS,
  ...(scenario.headers ? { headers: scenario.headers } : {}),
});

interface Round {
  rps: number;
  cpuMsPerRequest: number;
  load: number;
}
/** CPU seconds of the API processes together. */
const cpuOf = (pids: number[]) => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

console.log(
  `\nOne API process against two (node ${process.version}, ${os.cpus().length} cpus, medians of ${ROUNDS} rounds of ${SECONDS} s)`,
);
console.log(
  `${'scenario'.padEnd(28)}${'1 process'.padStart(12)}${'cpu ms/req'.padStart(12)}${'load 1m'.padStart(9)}` +
    `${'2 processes'.padStart(14)}${'cpu ms/req'.padStart(12)}${'load 1m'.padStart(9)}${'ratio'.padStart(8)}`,
);
for (const scenario of scenarios) {
  const one: Round[] = [];
  const two: Round[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let cpuBefore = cpuOf([first.serverPid]);
    const single = await measure('one', load(first.url, scenario, scenario.connections));
    one.push({
      rps: single.rps,
      cpuMsPerRequest: ((cpuOf([first.serverPid]) - cpuBefore) * 1000) / Math.max(1, single.requests),
      load: loadAverage(),
    });
    const half = Math.max(1, scenario.connections / 2);
    cpuBefore = cpuOf([first.serverPid, second.pid]);
    const both = await Promise.all([
      measure('first', load(first.url, scenario, half)),
      measure('second', load(second.url, scenario, half)),
    ]);
    const requests = both.reduce((sum, run) => sum + run.requests, 0);
    two.push({
      rps: both.reduce((sum, run) => sum + run.rps, 0),
      cpuMsPerRequest: ((cpuOf([first.serverPid, second.pid]) - cpuBefore) * 1000) / Math.max(1, requests),
      load: loadAverage(),
    });
  }
  const of = (rounds: Round[], pick: (round: Round) => number) => median(rounds.map(pick));
  const figures = (rounds: Round[], width: number) =>
    `${of(rounds, (r) => r.rps)
      .toFixed(0)
      .padStart(width)}${of(rounds, (r) => r.cpuMsPerRequest)
      .toFixed(3)
      .padStart(12)}` +
    `${of(rounds, (r) => r.load)
      .toFixed(2)
      .padStart(9)}`;
  const ratio = of(two, (r) => r.rps) / of(one, (r) => r.rps);
  console.log(`${scenario.name.padEnd(28)}${figures(one, 12)}${figures(two, 14)}${ratio.toFixed(2).padStart(7)}x`);
}

await second.close();
await first.close();
