/**
 * Scaling out: the `.mp3` redirect and the batch of 100 play links served by one API process,
 * then by two (same database, `RUN_WORKER=false`), each loaded by its own client at once; the
 * ratio is the two processes' total requests/s over the single process's. Rounds alternate
 * (one, two, one, two) and each setup keeps its best round.
 *
 * The goal (>= 1.7x) needs a core per process plus the load generator's own: on a machine with
 * fewer than 4 cores the processes and the clients share them, and the ratio shows that limit
 * rather than the service's. The bench prints the core count beside the figure.
 * Run: npm run bench -- scale (BENCH_SECONDS per round, default 5; BENCH_ROUNDS, default 2).
 */
import os from 'node:os';
import { appInstance, benchAccount, benchApp, type LoadOptions, measure, type Measurement } from './lib.js';
import { seedPlayLinks } from './seed.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

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
  ...(scenario.headers ? { headers: scenario.headers } : {}),
});
const total = (runs: Measurement[]) => runs.reduce((sum, run) => sum + run.rps, 0);

console.log(`\nOne API process against two (node ${process.version}, ${os.cpus().length} cpus)`);
console.log(`${'scenario'.padEnd(28)}${'1 process'.padStart(12)}${'2 processes'.padStart(14)}${'ratio'.padStart(8)}`);
for (const scenario of scenarios) {
  let one = 0;
  let two = 0;
  for (let round = 0; round < ROUNDS; round++) {
    one = Math.max(one, (await measure('one', load(first.url, scenario, scenario.connections))).rps);
    const half = Math.max(1, scenario.connections / 2);
    const both = await Promise.all([
      measure('first', load(first.url, scenario, half)),
      measure('second', load(second.url, scenario, half)),
    ]);
    two = Math.max(two, total(both));
  }
  console.log(
    `${scenario.name.padEnd(28)}${one.toFixed(0).padStart(12)}${two.toFixed(0).padStart(14)}${(two / one).toFixed(2).padStart(7)}x`,
  );
}

await second.close();
await first.close();
