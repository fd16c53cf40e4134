/**
 * Play-link hot paths against a bare node:http server answering a 302, in one run, on SQLite:
 *   npx tsx bench/play-links.ts            (about 75 s; loopback only)
 * Each server runs in its own child process, so the load generator (autocannon, in this process)
 * does not share an event loop with what it measures. Prints requests/s, p50/p99 latency and the
 * ratio to the bare server. Targets: .mp3 >= 0.8x bare; batch-100 p99 <= 10 ms at 10 connections.
 * Options (env): BENCH_SECONDS (2) per round, BENCH_ROUNDS (3), BENCH_CONNECTIONS (50), BENCH_TOKENS (10000),
 * BENCH_CPU_PROF=<dir> (CPU profiles of the servers).
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

import autocannon from 'autocannon';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TOKENS = Number(process.env.BENCH_TOKENS ?? 10_000);
/** The default cache TTL (PLAY_LINK_CACHE_TTL_MS) in seconds: warm-up of the token scenarios. */
const WARMUP_TTL = Math.max(1, Math.ceil(Number(process.env.PLAY_LINK_CACHE_TTL_MS ?? 5000) / 1000));

interface AppInfo {
  port: number;
  tokens: string[];
  userIds: string[];
  collectionId: string;
  key: string;
}

// ---- child roles ----

async function serveBare(): Promise<void> {
  const server = http.createServer((_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1/audio/abc.mp3', 'cache-control': 'no-store' });
    res.end();
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as { port: number }).port }));
}

async function serveApp(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
  const { loadConfig } = await import('../src/config.js');
  const { createDeps } = await import('../src/deps.js');
  const { migrateToLatest } = await import('../src/db/migrate.js');
  const { buildApp } = await import('../src/app.js');
  const { createApiKey } = await import('../src/features/api-keys/service.js');
  const { seedPlayLinks } = await import('./seed.js');
  const config = loadConfig({
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    RUN_WORKER: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000',
    BASE_URL: 'http://127.0.0.1:3000',
    ...(process.env.PLAY_LINK_CACHE_TTL_MS ? { PLAY_LINK_CACHE_TTL_MS: process.env.PLAY_LINK_CACHE_TTL_MS } : {}),
  });
  const deps = createDeps(config);
  await migrateToLatest(deps.db);
  const created = await createApiKey(deps, { accountEmail: 'bench@example.com' });
  const { collectionId, tokens, userIds } = await seedPlayLinks(deps, TOKENS);
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as { port: number };
  process.send?.({ port: address.port, tokens, userIds, collectionId, key: created.key } satisfies AppInfo);
}

// ---- parent ----

function start<T>(role: string): Promise<{ info: T; stop: () => void }> {
  const child = fork(process.argv[1] as string, [role], {
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ],
    stdio: 'inherit',
  });
  return new Promise((resolve, reject) => {
    child.once('message', (info) => resolve({ info: info as T, stop: () => child.send('stop') }));
    child.once('exit', (code) => reject(new Error(`${role} exited with ${code}`)));
  });
}

interface Scenario {
  name: string;
  /** Seconds of load before each measured round. */
  warmup: number;
  port: number;
  expectStatus: number;
  nextPath: () => string;
  connections: number;
  headers?: Record<string, string>;
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

const pick = <T>(list: T[]): T => list[Math.floor(Math.random() * list.length)] as T;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function measure(scenario: Scenario, seconds: number): Promise<Sample> {
  let bad = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `http://127.0.0.1:${scenario.port}`,
        connections: scenario.connections,
        duration: seconds,
        headers: scenario.headers ?? {},
        requests: [{ method: 'GET', setupRequest: (request) => ({ ...request, path: scenario.nextPath() }) }],
      },
      (err, done) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(done)),
    );
    instance.on('response', (_client, status) => {
      if (status !== scenario.expectStatus) bad++;
    });
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, bad };
}

async function main(): Promise<void> {
  const role = process.argv[2];
  // Children exit normally when told, so --cpu-prof (BENCH_CPU_PROF=<dir>) can write its profile.
  process.on('message', (message) => message === 'stop' && process.exit(0));
  if (role === 'bare') return serveBare();
  if (role === 'app') return serveApp();

  const [bare, app] = await Promise.all([start<{ port: number }>('bare'), start<AppInfo>('app')]);
  try {
    const { tokens, userIds, collectionId, key } = app.info;
    // A few popular links: every request is a cache hit (the fast path at its best).
    const hot = tokens.slice(0, 10);
    const scenarios: Scenario[] = [
      {
        name: 'bare node:http 302',
        warmup: 1,
        port: bare.info.port,
        expectStatus: 302,
        connections: CONNECTIONS,
        nextPath: () => `/p/${pick(tokens)}.mp3`,
      },
      {
        name: 'app GET /healthz (framework floor)',
        warmup: 1,
        port: app.info.port,
        expectStatus: 200,
        connections: CONNECTIONS,
        nextPath: () => '/healthz',
      },
      {
        name: '/p/<token>.mp3 (302)',
        warmup: WARMUP_TTL,
        port: app.info.port,
        expectStatus: 302,
        connections: CONNECTIONS,
        nextPath: () => `/p/${pick(tokens)}.mp3`,
      },
      {
        name: '/p/<token>.mp3, 10 hot tokens',
        warmup: 1,
        port: app.info.port,
        expectStatus: 302,
        connections: CONNECTIONS,
        nextPath: () => `/p/${pick(hot)}.mp3`,
      },
      {
        name: '/p/<token>/meta',
        warmup: WARMUP_TTL,
        port: app.info.port,
        expectStatus: 200,
        connections: CONNECTIONS,
        nextPath: () => `/p/${pick(tokens)}/meta`,
      },
      {
        name: 'GET /v1/play-links/batch (100 ids)',
        warmup: 1,
        port: app.info.port,
        expectStatus: 200,
        connections: 10,
        headers: { authorization: `Bearer ${key}` },
        nextPath: () =>
          `/v1/play-links/batch?collection_id=${collectionId}&user_ids=${Array.from({ length: 100 }, () => pick(userIds)).join(',')}`,
      },
    ];
    const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
    if (only) scenarios.splice(1, scenarios.length, ...scenarios.slice(1).filter((s) => only.test(s.name)));
    console.log(
      `Play-link benchmark on SQLite: ${TOKENS} tokens, ${ROUNDS} interleaved rounds of ${SECONDS} s per scenario, ` +
        `${os.cpus().length} CPUs, load average ${os.loadavg()[0]?.toFixed(1)}, Node ${process.version}`,
    );
    // Interleaved rounds, medians per scenario: a busy neighbour on the machine skews one round, not one
    // scenario. Each round starts with a warm-up: JIT and connections (1 s), and for the token scenarios
    // one cache TTL (5 s) of load, so the measured seconds see the steady state of continuous traffic,
    // where every token is reloaded from the database once per TTL (cache misses included).
    const samples = new Map<string, Sample[]>(scenarios.map((s) => [s.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const scenario of scenarios) {
        await measure(scenario, scenario.warmup);
        samples.get(scenario.name)?.push(await measure(scenario, SECONDS));
      }
    }
    const rows = scenarios.map((scenario) => {
      const list = samples.get(scenario.name) ?? [];
      return {
        name: scenario.name,
        connections: scenario.connections,
        rps: median(list.map((x) => x.rps)),
        p50: median(list.map((x) => x.p50)),
        p99: median(list.map((x) => x.p99)),
        bad: list.reduce((sum, x) => sum + x.bad, 0),
      };
    });
    const baseline = rows[0] as (typeof rows)[0];
    console.log('');
    console.log(
      `${'scenario'.padEnd(36)} ${'conns'.padStart(5)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'vs bare'.padStart(8)} ${'bad'.padStart(5)}`,
    );
    for (const row of rows) {
      console.log(
        `${row.name.padEnd(36)} ${String(row.connections).padStart(5)} ${row.rps.toFixed(0).padStart(9)} ${String(row.p50).padStart(7)} ${String(row.p99).padStart(7)} ${(row.rps / baseline.rps).toFixed(2).padStart(8)} ${String(row.bad).padStart(5)}`,
      );
    }
    const mp3 = rows.find((row) => row.name === '/p/<token>.mp3 (302)');
    const batch = rows.find((row) => row.name.includes('batch'));
    console.log('');
    if (mp3) console.log(`.mp3 redirect vs bare: ${(mp3.rps / baseline.rps).toFixed(2)}x (target >= 0.80)`);
    if (batch) console.log(`batch-100 p99 at 10 connections: ${batch.p99} ms (target <= 10 ms)`);
    if (rows.some((row) => row.bad > 0)) console.log('WARNING: some responses had an unexpected status (column "bad").');
  } finally {
    bare.stop();
    app.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
