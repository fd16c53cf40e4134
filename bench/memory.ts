/**
 * Memory of the server on the default configuration (SQLite, local disk, sandbox payments, the
 * in-process worker, no tracing, no Redis), against the goals: <= 150 MB resident idle, <= 300 MB
 * under load.
 *
 * - idle: `node --max-semi-space-size=4 scripts/start.mjs` (as docs/deploy.md runs dist/main.js:
 *   the server in that one process), IDLE_SECONDS after it first answers;
 * - idle under `npm start` (package.json passes `--max-semi-space-size=4`): the whole process
 *   tree (npm, the shell it may start, the server) and the server process alone. The tree is
 *   judged by the memory it takes from the machine (private pages, shared ones once:
 *   `treeMemoryMb`); its summed RSS is shown too, which counts the Node executable once per process;
 * - peak of each server under `.mp3` redirect load over 10,000 play links (each token cached
 *   once, as a long tail of embeds does), next to a bare node:http server's under the same load.
 *
 * Each figure is one measurement (the peak is what matters, not a typical round), printed with the
 * 1-minute load average at the time it was taken.
 *
 * Run: npm run bench -- memory (BENCH_SECONDS: load duration, default 10; BENCH_NODE_OPTIONS: extra
 * flags for the server processes instead of `--max-semi-space-size=4`, to compare knobs).
 */
import autocannon from 'autocannon';
import { bareServer, benchAccount, benchApp, loadAverage, processTree, rssMb, treeMemoryMb } from './lib.js';
import { seedPlayLinks } from './seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 5);
const GOAL_IDLE_MB = 150;
const GOAL_LOAD_MB = 300;
/** The default configuration: only what the benchmark needs on top (a quiet log, no rate limit in the way). */
const env = { RUN_WORKER: 'true', NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? '--max-semi-space-size=4' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let tokens: string[] = [];
const seed = async (deps: Parameters<Parameters<typeof benchApp>[0]>[0]) => {
  await benchAccount(deps, 'memory@example.com');
  tokens = (await seedPlayLinks(deps, 10_000)).tokens;
};

async function peakUnderLoad(url: string, pid: number, paths: () => string) {
  let peak = rssMb(pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const result = await autocannon({
    url,
    connections: 50,
    duration: SECONDS,
    requests: [{ setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  clearInterval(sampler);
  return {
    peak,
    rps: result.requests.average,
    errors: result.errors + result.timeouts + result.non2xx - result['3xx'],
    load: loadAverage(),
  };
}

// 1. `node scripts/start.mjs`: idle, then under load.
const app = await benchApp(seed, env);
await sleep(IDLE_SECONDS * 1000);
const idle = rssMb(app.serverPid);
const idleLoad = loadAverage();
const pick = () => `/p/${tokens[Math.floor(Math.random() * tokens.length)]}.mp3`;
const loaded = await peakUnderLoad(app.url, app.serverPid, pick);
await app.close();

// 2. `npm start` (which passes --max-semi-space-size=4): the process tree idle, then the server under load.
const npm = await benchApp(seed, env, { via: 'npm' });
await sleep(IDLE_SECONDS * 1000);
const tree = processTree(npm.pid);
const treeIdle = treeMemoryMb(tree);
const treeIdleRss = tree.reduce((sum, pid) => sum + rssMb(pid), 0);
const npmServerIdle = rssMb(npm.serverPid);
const npmIdleLoad = loadAverage();
const npmLoaded = await peakUnderLoad(npm.url, npm.serverPid, pick);
await npm.close();

// 3. The baseline: a bare node:http server answering the same redirect.
const bare = await bareServer({ status: 302, headers: { location: 'http://127.0.0.1/audio/a.mp3' }, body: '' });
const bareLoaded = await peakUnderLoad(bare.url, bare.pid as number, () => '/');
await bare.close();

const verdict = (mb: number, goal: number) => (mb <= goal ? 'PASS' : `over by ${(mb - goal).toFixed(0)} MB`);
console.log(
  `server memory (node ${process.version}, default configuration: SQLite, disk, sandbox, in-process worker${
    env.NODE_OPTIONS ? `, NODE_OPTIONS=${env.NODE_OPTIONS}` : ''
  }; 10,000 play links; ${IDLE_SECONDS} s idle; ${SECONDS} s of .mp3 redirects at 50 connections)`,
);
console.log('| | RSS MB | goal MB | | requests/s | load 1m |\n|---|---|---|---|---|---|');
console.log(
  `| idle, node scripts/start.mjs | ${idle.toFixed(0)} | ${GOAL_IDLE_MB} | ${verdict(idle, GOAL_IDLE_MB)} | | ${idleLoad.toFixed(2)} |`,
);
console.log(
  `| idle, npm start tree (${tree.length} processes, shared pages once) | ${treeIdle.toFixed(0)} | ${GOAL_IDLE_MB} | ${verdict(treeIdle, GOAL_IDLE_MB)} | | ${npmIdleLoad.toFixed(2)} |`,
);
console.log(
  `| idle, npm start tree (RSS summed: shared pages counted per process) | ${treeIdleRss.toFixed(0)} | | | | ${npmIdleLoad.toFixed(2)} |`,
);
console.log(`| idle, npm start: the server process alone | ${npmServerIdle.toFixed(0)} | | | | ${npmIdleLoad.toFixed(2)} |`);
const loadRow = (name: string, run: typeof loaded) =>
  console.log(
    `| ${name} | ${run.peak.toFixed(0)} | ${GOAL_LOAD_MB} | ${verdict(run.peak, GOAL_LOAD_MB)} | ${run.rps.toFixed(0)}${
      run.errors > 0 ? ` (${run.errors} errors)` : ''
    } | ${run.load.toFixed(2)} |`,
  );
loadRow('peak under redirect load, node scripts/start.mjs', loaded);
loadRow('peak under redirect load, npm start', npmLoaded);
console.log(
  `| bare node:http 302, peak under load | ${bareLoaded.peak.toFixed(0)} | | | ${bareLoaded.rps.toFixed(0)} | ${bareLoaded.load.toFixed(2)} |`,
);
