/**
 * The play-count flush of a long tail: `npm run bench -- play-counts`. BENCH_TOKENS (100,000) people
 * with a play link each (bench/seed.ts), every link played once in random order, then one
 * `flushPlayCounts`; BENCH_ROUNDS (5) rounds, medians. Prints the CPU time of this process (all its
 * threads: SQLite's checkpointer thread too) per token written, the flush's wall time, the event
 * loop's longest delay during it and the bytes the process wrote meanwhile (SQLite's log and the
 * checkpoints into the database file), with the load average.
 * On SQLite always; on PostgreSQL too when BENCH_PG_URL is set (a schema of its own, left in place).
 * The flush is the subject, so it runs in this process: BENCH_APP_ROOT (another checkout, e.g. the
 * tree before a change) takes the services from there, for a before/after with the same script.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import type { Deps } from '../src/deps.js';
import { benchAccount, loadAverage, median } from './lib.js';
import { seedPlayLinks } from './seed.js';

const TOKENS = Number(process.env.BENCH_TOKENS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROOT = process.env.BENCH_APP_ROOT ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

const load = async <T>(file: string): Promise<T> => (await import(pathToFileURL(path.join(ROOT, 'src', file)).href)) as T;
const { loadConfig } = await load<typeof import('../src/config.js')>('config.ts');
const { createDeps } = await load<typeof import('../src/deps.js')>('deps.ts');
const { openDb } = await load<typeof import('../src/db/index.js')>('db/index.ts');
const { migrateToLatest } = await load<typeof import('../src/db/migrate.js')>('db/migrate.ts');
type FlushModule = typeof import('../src/features/play-links/play-counts.js');
// Trees before play-counts.ts had the flush in the service.
const { flushPlayCounts } = fs.existsSync(path.join(ROOT, 'src/features/play-links/play-counts.ts'))
  ? await load<FlushModule>('features/play-links/play-counts.ts')
  : await load<FlushModule>('features/play-links/service.ts');

interface Round {
  cpuUsPerToken: number;
  wallMs: number;
  maxLoopDelayMs: number;
  writtenMb: number;
  load: number;
}

const shuffled = (list: string[]) => {
  const copy = [...list];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as string, copy[i] as string];
  }
  return copy;
};

/** Bytes this process has handed to write(2) so far (/proc/self/io): SQLite's log and database writes. */
const writtenBytes = () => Number(/^wchar: (\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);

async function flushRound(deps: Deps, tokens: string[]): Promise<Round> {
  for (const token of shuffled(tokens)) deps.playLinks.counter.add(token);
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  const writtenBefore = writtenBytes();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  histogram.enable();
  const written = await flushPlayCounts(deps);
  histogram.disable();
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  if (written !== tokens.length) throw new Error(`flushed ${written} plays, expected ${tokens.length}`);
  return {
    cpuUsPerToken: (cpu.user + cpu.system) / tokens.length,
    wallMs,
    maxLoopDelayMs: histogram.max / 1e6,
    writtenMb: (writtenBytes() - writtenBefore) / 2 ** 20,
    load: loadAverage(),
  };
}

async function scenario(name: string, settings: Record<string, string>, schema?: string): Promise<string> {
  const config = loadConfig({
    NODE_ENV: 'production',
    BASE_URL: 'http://127.0.0.1:3000',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    RUN_WORKER: 'false',
    ...settings,
  });
  const deps = createDeps(config, { db: openDb(config.database, { schema }) });
  try {
    await migrateToLatest(deps.db);
    await benchAccount(deps, 'bench@example.com');
    const { tokens } = await seedPlayLinks(deps, TOKENS);
    await flushRound(deps, tokens); // warm-up: statements prepared, pages cached
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Between flushes the checkpointer catches up, as it would in 10 s of traffic.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const result = await flushRound(deps, tokens);
      rounds.push(result);
      console.log(
        `  ${name} round ${round + 1}: ${result.cpuUsPerToken.toFixed(2)} µs CPU/token, ${result.wallMs.toFixed(0)} ms, ` +
          `loop delay max ${result.maxLoopDelayMs.toFixed(1)} ms, ${result.writtenMb.toFixed(1)} MB written, load ${result.load.toFixed(2)}`,
      );
    }
    const of = (pick: (round: Round) => number) => median(rounds.map(pick));
    return (
      `${name.padEnd(12)}${of((r) => r.cpuUsPerToken)
        .toFixed(2)
        .padStart(14)}${of((r) => r.wallMs)
        .toFixed(0)
        .padStart(10)}` +
      `${of((r) => r.maxLoopDelayMs)
        .toFixed(1)
        .padStart(16)}${of((r) => r.writtenMb)
        .toFixed(1)
        .padStart(12)}${of((r) => r.load)
        .toFixed(2)
        .padStart(8)}`
    );
  } finally {
    await deps.db.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `flushPlayCounts of ${TOKENS} links played once each (${ROOT}): ${ROUNDS} rounds, medians; ` +
      `Node ${process.version}, ${os.cpus().length} cpus, load average ${loadAverage().toFixed(2)} at start`,
  );
  const header = `${'database'.padEnd(12)}${'µs CPU/token'.padStart(14)}${'wall ms'.padStart(10)}${'loop max ms'.padStart(16)}${'written MB'.padStart(12)}${'load'.padStart(8)}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
  const rows: string[] = [];
  try {
    rows.push(await scenario('sqlite', { DATA_DIR: dataDir }));
    const pgUrl = process.env.BENCH_PG_URL;
    if (pgUrl) {
      const schema = `bench_${Date.now().toString(36)}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      await admin.end();
      rows.push(await scenario('postgres', { DATA_DIR: dataDir, DATABASE_URL: pgUrl }, schema));
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n${header}\n${rows.join('\n')}`);
}

// Exits when done: a pool or thread the services opened must not keep a finished bench waiting.
main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
