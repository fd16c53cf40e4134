/**
 * `GET /p/<token>.mp3` against its fair floor, on SQLite: `npm run bench -- play-links`.
 * The app is the built server in its own process (`benchApp`); the floor (bench/bare-redirect-server.ts,
 * its own process) loads the same links with one raw query and answers each request with a Map lookup
 * and the app's 302, header for header (checked before measuring: only Date and the request id's value
 * differ). The load generator (autocannon) runs in this process. Random tokens over 10k and 100k links,
 * every link played once first (the links in use); then BENCH_ROUNDS (5) interleaved rounds of
 * BENCH_SECONDS (5) per side, each after a 1 s warm-up. Prints per scenario the median req/s of each
 * side, their ratio (target >= 0.80), the servers' CPU time per request (/proc), the app's p50/p99 and
 * the 1-minute load average; and the batch lookup's p50/p99 (target <= 10 ms at 10 connections) for
 * random people, first on a cold per-person cache, then on a warm one.
 * Options (env): BENCH_SECONDS, BENCH_ROUNDS, BENCH_CONNECTIONS (50), BENCH_TOKENS (100000).
 */
import path from 'node:path';
import autocannon from 'autocannon';
import { baselineServer, benchAccount, benchApp, loadAverage, measureWithCpu, median, type Measurement } from './lib.js';
import { seedPlayLinks } from './seed.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 100_000);

type Sample = Measurement & { cpuUsPerRequest: number; load: number };

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;
const randomMp3 = (tokens: string[]): autocannon.Request[] => [
  { method: 'GET', setupRequest: (request) => ({ ...request, path: `/p/${pick(tokens)}.mp3` }) },
];

/** The app's 302 for one token, as node:http saw it on the wire (raw header names and values, in order). */
async function rawRedirect(url: string): Promise<string[]> {
  const http = await import('node:http');
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        resolve(res.rawHeaders);
      })
      .on('error', reject);
  });
}

/** Headers node:http writes itself (Date, Connection, Keep-Alive): the floor's server writes its own. */
const writtenByNode = new Set(['date', 'connection', 'keep-alive']);
const comparable = (raw: string[]) =>
  raw.map((value, i) => (i % 2 === 1 && ['date', 'x-request-id'].includes(raw[i - 1]?.toLowerCase() ?? '') ? '…' : value));

/** Every token once, `CONNECTIONS` at a time: the cache then holds the links in use, as in steady traffic. */
async function playEachOnce(url: string, tokens: string[]): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < tokens.length) await fetch(`${url}/p/${tokens[next++]}.mp3`, { redirect: 'manual' });
    }),
  );
}

async function main(): Promise<void> {
  let seeded = { collectionId: '', tokens: [] as string[], userIds: [] as string[] };
  let key = '';
  const app = await benchApp(async (deps) => {
    key = (await benchAccount(deps, 'bench@example.com')).key;
    seeded = await seedPlayLinks(deps, TOKENS);
  });
  const { tokens, userIds, collectionId } = seeded;
  const sample = await rawRedirect(`${app.url}/p/${tokens[0]}.mp3`);
  const keepAlive = /timeout=(\d+)/.exec(
    sample[sample.findIndex((v, i) => i % 2 === 0 && v.toLowerCase() === 'keep-alive') + 1] ?? '',
  );
  const template = sample.filter((_, i) => !writtenByNode.has((sample[i - (i % 2)] ?? '').toLowerCase()));
  const floor = await baselineServer('bare-redirect-server.ts', {
    SQLITE_FILE: path.join(app.settings.DATA_DIR ?? '', 'voicename.db'),
    BASE_URL: app.url,
    KEEP_ALIVE_MS: String(Number(keepAlive?.[1] ?? 5) * 1000),
    BARE_TEMPLATE: JSON.stringify(template),
  });
  try {
    const floorSample = await rawRedirect(`${floor.url}/p/${tokens[0]}.mp3`);
    if (JSON.stringify(comparable(floorSample)) !== JSON.stringify(comparable(sample))) {
      throw new Error(
        `the floor's 302 differs from the app's:\n${comparable(sample).join(' ')}\n${comparable(floorSample).join(' ')}`,
      );
    }
    const scenarios = [
      { name: '.mp3, random of 10k tokens', tokens: tokens.slice(0, 10_000) },
      ...(tokens.length > 10_000 ? [{ name: `.mp3, random of ${tokens.length / 1000}k tokens`, tokens }] : []),
    ];
    console.log(
      `.mp3 vs its floor on SQLite: ${ROUNDS} interleaved rounds of ${SECONDS} s, ${CONNECTIONS} connections, ` +
        `Node ${process.version}, load average ${loadAverage().toFixed(2)} at start`,
    );
    await playEachOnce(app.url, tokens);
    const samples = new Map<string, { app: Sample[]; floor: Sample[] }>(scenarios.map((s) => [s.name, { app: [], floor: [] }]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        for (const [side, server] of [
          ['floor', floor],
          ['app', { url: app.url, pid: app.serverPid }],
        ] as const) {
          const options = { url: server.url, connections: CONNECTIONS, requests: randomMp3(scenario.tokens) };
          await measureWithCpu('warm-up', server.pid, { ...options, seconds: 1 });
          const load = loadAverage();
          const result = await measureWithCpu(scenario.name, server.pid, { ...options, seconds: SECONDS });
          samples.get(scenario.name)?.[side].push({ ...result, load });
          console.log(
            `  round ${round + 1} ${scenario.name} ${side.padEnd(5)} ${result.rps.toFixed(0).padStart(6)} req/s ` +
              `${result.cpuUsPerRequest.toFixed(1).padStart(6)} µs CPU/req, load ${load}`,
          );
        }
      }
    }
    console.log(
      `\n${'scenario'.padEnd(30)}${'floor req/s'.padStart(12)}${'app req/s'.padStart(11)}${'ratio'.padStart(7)}` +
        `${'floor µs'.padStart(10)}${'app µs'.padStart(8)}${'CPU ratio'.padStart(11)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}  errors  load`,
    );
    for (const scenario of scenarios) {
      const { app: appRuns, floor: floorRuns } = samples.get(scenario.name) ?? { app: [], floor: [] };
      const of = (runs: Sample[], field: 'rps' | 'cpuUsPerRequest' | 'p50' | 'p99') => median(runs.map((run) => run[field]));
      // Errors and timeouts (every answer is a 302, which autocannon counts as non-2xx: the status was checked above).
      const bad = appRuns.reduce((sum, run) => sum + run.errors, 0);
      console.log(
        `${scenario.name.padEnd(30)}${of(floorRuns, 'rps').toFixed(0).padStart(12)}${of(appRuns, 'rps').toFixed(0).padStart(11)}` +
          `${(of(appRuns, 'rps') / of(floorRuns, 'rps')).toFixed(2).padStart(7)}${of(floorRuns, 'cpuUsPerRequest').toFixed(1).padStart(10)}` +
          `${of(appRuns, 'cpuUsPerRequest').toFixed(1).padStart(8)}` +
          `${(of(floorRuns, 'cpuUsPerRequest') / of(appRuns, 'cpuUsPerRequest')).toFixed(2).padStart(11)}` +
          `${of(appRuns, 'p50').toFixed(1).padStart(8)}${of(appRuns, 'p99').toFixed(1).padStart(8)}  ${String(bad).padStart(6)}  ` +
          `${median(appRuns.map((run) => run.load)).toFixed(2)}`,
      );
    }
    console.log(
      "(ratio: median app req/s over median floor req/s, target >= 0.80; CPU ratio: floor CPU per request over the app's)",
    );
    // Batches of 100 random people of all seeded: the first run starts with none of them cached
    // (each batch then reads about 100 people from SQLite: ~1 ms a batch, so 10 connections queue
    // behind one another); the second finds most of them cached, as steady traffic would.
    for (const phase of ['cold', 'warm']) {
      const batch = await measureWithCpu(`batch ${phase}`, app.serverPid, {
        url: app.url,
        connections: 10,
        headers: { authorization: `Bearer ${key}` },
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => ({
              ...request,
              path: `/v1/play-links/batch?collection_id=${collectionId}&user_ids=${Array.from({ length: 100 }, () => pick(userIds)).join(',')}`,
            }),
          },
        ],
      });
      console.log(
        `batch-100 of random people, ${phase} cache, 10 connections: p50 ${batch.p50} ms, p99 ${batch.p99} ms ` +
          `(target <= 10 ms), ${batch.rps.toFixed(0)} req/s, ${batch.cpuUsPerRequest.toFixed(0)} µs CPU/req, load ${loadAverage().toFixed(2)}`,
      );
    }
  } finally {
    await floor.close();
    await app.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
