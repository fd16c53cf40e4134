/**
 * Shared benchmark plumbing: a bare node:http baseline server, autocannon runs and a table of
 * results with ratios to the baseline. Absolute numbers drift 10-15 % between runs on a small
 * VM, so every benchmark compares against the baseline measured in the same run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createDeps, type Deps } from '../src/deps.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { findAccountWithEmail } from '../src/features/accounts/service.js';
import { createApiKey } from '../src/features/api-keys/service.js';

const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));

export interface Measurement {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Requests answered in the run (for CPU time per request). */
  requests: number;
  /** CPU time (user + system) the server process spent per request over the round; NaN without a pid. */
  cpuMsPerRequest: number;
  /** The machine's 1-minute load average at the end of the round: read the figures beside it. */
  load1: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  seconds?: number;
  /** Different request per call (e.g. random tokens). */
  requests?: autocannon.Request[];
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux build we run on). */
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) process `pid` has used so far, from /proc/<pid>/stat (NaN once it has ended). */
export function cpuSeconds(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after `pid (comm) `: state is the 1st, utime the 12th and stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/**
 * One autocannon round against `options.url`; with `serverPid`, the CPU time that process spent
 * per request over the round (the load generator runs in this process, never in the server's).
 */
export async function measure(name: string, options: LoadOptions, serverPid?: number): Promise<Measurement> {
  const cpuBefore = serverPid === undefined ? Number.NaN : cpuSeconds(serverPid);
  const result = await autocannon({
    url: options.url,
    method: options.method ?? 'GET',
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
    ...(options.requests ? { requests: options.requests } : {}),
    connections: options.connections ?? 50,
    duration: options.seconds ?? Number(process.env.BENCH_SECONDS ?? 5),
  });
  const cpuUsed = serverPid === undefined ? Number.NaN : cpuSeconds(serverPid) - cpuBefore;
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
    cpuMsPerRequest: (cpuUsed * 1000) / Math.max(1, result.requests.total),
    load1: os.loadavg()[0] ?? 0,
  };
}

/** The median of `values`, NaNs left out (NaN when none is left). */
export const median = (values: number[]): number => {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/** The median of every figure of several rounds of one side (errors are summed: one is one too many). */
export function medianOf(runs: Measurement[]): Measurement {
  const of = (pick: (run: Measurement) => number) => median(runs.map(pick));
  return {
    name: runs[0]?.name ?? '',
    rps: of((run) => run.rps),
    p50: of((run) => run.p50),
    p99: of((run) => run.p99),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    cpuMsPerRequest: of((run) => run.cpuMsPerRequest),
    load1: of((run) => run.load1),
  };
}

export interface Side {
  name: string;
  load: LoadOptions;
  /** The server process whose CPU time is read per round. */
  pid?: number;
}

/**
 * `rounds` rounds of every side, interleaved (side A, side B, side A…), so a noisy neighbour
 * hits both alike; returns each side's medians, in the order given.
 */
export async function interleavedRounds(sides: Side[], rounds = Number(process.env.BENCH_ROUNDS ?? 5)): Promise<Measurement[]> {
  const runs = sides.map(() => [] as Measurement[]);
  for (let round = 0; round < Math.max(1, rounds); round++) {
    for (const [index, side] of sides.entries()) runs[index]?.push(await measure(side.name, side.load, side.pid));
  }
  return runs.map(medianOf);
}

/** Starts a child process (TypeScript through tsx unless `built`) and waits until `url` answers. */
async function startProcess(args: string[], env: Record<string, string>, url: string, built = false): Promise<ChildProcess> {
  return waitUntilAnswering(
    spawn(process.execPath, [...(built ? [] : ['--import', 'tsx']), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
    args.join(' '),
    url,
  );
}

async function waitUntilAnswering(child: ChildProcess, name: string, url: string): Promise<ChildProcess> {
  const deadline = Date.now() + 300_000; // a first `npm start` builds dist/ (about 40 s)
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      await fetch(url, { redirect: 'manual' });
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`timed out starting ${name}`);
}

/** The process `pid` and all its descendants (read from /proc: Linux only). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // `pid (comm) state ppid …`: the command may hold spaces and parentheses, so split after the last `)`.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) tree.push(...(parents.get(tree[i] as number) ?? []));
  return tree;
}

/** Resident memory of one process in MB (0 once it has ended). */
export function rssMb(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/**
 * The memory a process tree takes from the machine, in MB: every process's private pages, plus the
 * pages they share counted once (the largest shared set among them; for npm and the server that is
 * the Node executable and libraries, which summed RSS counts in every process).
 */
export function treeMemoryMb(pids: number[]): number {
  let privateKb = 0;
  let sharedKb = 0;
  for (const pid of pids) {
    let rollup = '';
    try {
      rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    } catch {
      continue; // ended while we looked
    }
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
    privateKb += field('Private_Clean') + field('Private_Dirty');
    sharedKb = Math.max(sharedKb, field('Shared_Clean') + field('Shared_Dirty'));
  }
  return (privateKb + sharedKb) / 1024;
}

const commandOf = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return [];
  }
};

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const freePortNumber = () => 30000 + Math.floor(Math.random() * 20000);

/** The baseline: a bare node:http server in its own process, answering every request the same way. */
export async function bareServer(answer: { status: number; headers: Record<string, string>; body: string }) {
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    [path.join(BENCH_DIR, 'bare-server.ts')],
    { PORT: String(port), BARE_ANSWER: JSON.stringify(answer) },
    url,
  );
  return { url, pid: child.pid, close: () => stopProcess(child) };
}

/** A baseline server script of bench/ (e.g. bare-redirect-server.ts) in its own process, with its settings in `env`. */
export async function baselineServer(script: string, env: Record<string, string>) {
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProcess([path.join(BENCH_DIR, script)], { ...env, PORT: String(port) }, url);
  return { url, pid: child.pid as number, close: () => stopProcess(child) };
}

/**
 * The JSON endpoints' baseline (bench/bare-json-server.ts) in its own process: raw SQL on the
 * SQLite file of the app started by `benchApp`, answering with `headers` (by route name).
 */
export async function bareJsonServer(app: { settings: Record<string, string> }, headers: Record<string, Record<string, string>>) {
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    [path.join(BENCH_DIR, 'bare-json-server.ts')],
    { ...app.settings, PORT: String(port), BARE_HEADERS: JSON.stringify(headers) },
    url,
  );
  return { url, pid: child.pid as number, close: () => stopProcess(child) };
}

/** Another API process of a `benchApp` app (same database and settings) on its own port, as a second instance behind a load balancer. */
export async function appInstance(app: { settings: Record<string, string> }) {
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const script = path.join(BENCH_DIR, '..', 'scripts', 'start.mjs');
  const child = await startProcess([script], { ...app.settings, PORT: String(port) }, `${url}/healthz`, true);
  return { url, pid: child.pid as number, close: () => stopProcess(child) };
}

/** The export benchmark's baseline (bench/blob-stream-server.ts): the files listed in `listFile`, streamed in one response. */
export async function blobStreamServer(listFile: string) {
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const child = await startProcess(
    [path.join(BENCH_DIR, 'blob-stream-server.ts')],
    { PORT: String(port), BLOB_LIST: listFile },
    `${url}/healthz`,
  );
  return { url, pid: child.pid, close: () => stopProcess(child) };
}

/**
 * The real server in its own process, as `node scripts/start.mjs` runs it (the built dist/main.js,
 * built first if src/ is newer; SQLite; in-process worker off so only HTTP is measured, unless
 * `env` turns it on), on a temporary data directory. `seed` runs first, in this process, against
 * the same database, with the same services the API uses. With `via: 'npm'` it is started by
 * `npm start` instead: `pid` is then npm's, and `serverPid` the Node process running the server.
 */
export async function benchApp(
  seed: (deps: Deps) => Promise<void>,
  env: Record<string, string> = {},
  options: { via?: 'node' | 'npm' } = {},
) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-bench-'));
  const port = freePortNumber();
  const url = `http://127.0.0.1:${port}`;
  const settings: Record<string, string> = {
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: url,
    RUN_WORKER: 'false',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...env,
  };
  const deps = createDeps(loadConfig(settings));
  await migrateToLatest(deps.db);
  await seed(deps);
  await deps.db.close();
  // BENCH_APP_ROOT: another checkout's built server (a "before" tree), benched by this tree's script.
  const root = process.env.BENCH_APP_ROOT ?? path.join(BENCH_DIR, '..');
  const child =
    options.via === 'npm'
      ? await waitUntilAnswering(
          spawn('npm', ['start'], { cwd: root, env: { ...process.env, ...settings }, stdio: ['ignore', 'ignore', 'inherit'] }),
          'npm start',
          `${url}/healthz`,
        )
      : await startProcess([path.join(root, 'scripts', 'start.mjs')], settings, `${url}/healthz`, true);
  const pid = child.pid as number;
  // The Node process running scripts/start.mjs itself (not npm, not a `sh -c "node scripts/start.mjs"` between them).
  const serverPid =
    processTree(pid).find((each) => {
      const [program = '', ...args] = commandOf(each);
      return path.basename(program).startsWith('node') && args.some((arg) => arg.endsWith(path.join('scripts', 'start.mjs')));
    }) ?? pid;
  return {
    url,
    pid,
    serverPid,
    settings,
    async close() {
      // The server is stopped directly (npm forwards SIGTERM too, but a shell may sit between them).
      if (serverPid !== pid) {
        const exited = new Promise<void>((resolve) => {
          const poll = setInterval(() => rssMb(serverPid) === 0 && (clearInterval(poll), resolve()), 50);
        });
        process.kill(serverPid, 'SIGTERM');
        await exited;
      }
      await stopProcess(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function report(title: string, baseline: Measurement, rows: Measurement[]): void {
  const fmt = (n: number, digits = 0) => n.toFixed(digits).padStart(9);
  console.log(`\n${title}  (node ${process.version}, ${os.cpus().length} cpus)`);
  console.log(
    `${'endpoint'.padEnd(44)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'ratio'.padStart(9)}` +
      `${'cpu ms/req'.padStart(11)}${'load 1m'.padStart(9)}  errors`,
  );
  for (const row of [baseline, ...rows]) {
    const ratio = row === baseline ? 1 : row.rps / baseline.rps;
    const cpu = Number.isNaN(row.cpuMsPerRequest ?? Number.NaN) ? '-'.padStart(11) : fmt(row.cpuMsPerRequest, 3).padStart(11);
    console.log(
      `${row.name.padEnd(44)}${fmt(row.rps)}${fmt(row.p50, 2)}${fmt(row.p99, 2)}${fmt(ratio, 2)}${cpu}` +
        `${fmt(row.load1 ?? os.loadavg()[0] ?? 0, 2)}  ${row.errors + row.non2xx}`,
    );
  }
}

/** A new account with an API key, through the services the API uses: its key and account id. */
export async function benchAccount(deps: Deps, email: string): Promise<{ key: string; accountId: string }> {
  const created = await createApiKey(deps, { accountEmail: email });
  const account = await findAccountWithEmail(deps, created.account);
  if (!account) throw new Error(`account ${created.account} was not created`);
  return { key: created.key, accountId: account.id };
}

/** `measure`, plus the CPU time the server process `pid` spent per request over the run (µs). */
export async function measureWithCpu(
  name: string,
  pid: number,
  options: LoadOptions,
): Promise<Measurement & { cpuUsPerRequest: number }> {
  const before = cpuSeconds(pid);
  const result = await measure(name, options);
  return { ...result, cpuUsPerRequest: ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, result.requests) };
}

/**
 * CPU seconds this process has used so far, including the children it has waited for (ffmpeg
 * runs, spawnSync'd tools), which `process.cpuUsage` leaves out. Its own time comes from
 * `process.cpuUsage` (microseconds): /proc's 10 ms ticks are too coarse for millisecond calls.
 */
export function cpuSecondsWithChildren(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  // cutime and cstime: the 14th and 15th fields after `pid (comm) `.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = process.cpuUsage();
  return (own.user + own.system) / 1e6 + (Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
}

/**
 * Runs `fn` once: its wall time and the CPU time (ms) spent meanwhile by process `pid`, or by this
 * process and its waited-for children without one (for in-process work: `app.inject`, services).
 */
export async function timedWithCpu<T>(fn: () => Promise<T>, pid?: number): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu = () => (pid === undefined ? cpuSecondsWithChildren() : cpuSeconds(pid));
  const cpuBefore = cpu();
  const started = performance.now();
  const value = await fn();
  const ms = performance.now() - started;
  return { value, ms, cpuMs: (cpu() - cpuBefore) * 1000 };
}

/** The `p`th percentile (nearest rank) of `values`; `percentile(values, 50)` is the median's lower neighbour. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

/** Rounds of a bench (BENCH_ROUNDS, default `fallback`: 5, the fewest a median means something with). */
export const benchRounds = (fallback = 5): number => Math.max(1, Number(process.env.BENCH_ROUNDS ?? fallback));

/** The 1-minute load average, printed beside every figure: a busy machine explains a slow round. */
export const loadAverage = (): number => os.loadavg()[0] ?? 0;

/** CPU time (user + system, all threads) a process has used so far, in ms; 0 once it has ended. */
export function cpuMsOf(pid: number): number {
  const seconds = cpuSeconds(pid);
  return Number.isNaN(seconds) ? 0 : seconds * 1000;
}

/**
 * A dashboard session as a browser gets one: the sign-in form, then the link from the
 * development mailbox (the app must run with NODE_ENV=development). `page` GETs with the
 * session's cookies and keeps what the answer sets; `cookie()` is the header as it stands.
 */
export async function dashboardSession(
  app: { inject: FastifyInstance['inject'] },
  mailer: Deps['mailer'],
  email: string,
): Promise<{ page: (url: string) => Promise<LightMyRequestResponse>; cookie: () => string }> {
  let cookie = '';
  const keepCookies = (setCookie: string | string[] | undefined) => {
    const jar = new Map(cookie === '' ? [] : cookie.split('; ').map((pair) => pair.split('=') as [string, string]));
    for (const line of setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie]) {
      const [pair] = line.split(';');
      const [name, value] = (pair as string).split('=') as [string, string];
      if (value === '') jar.delete(name);
      else jar.set(name, value);
    }
    cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  };
  const page = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: { cookie } });
    keepCookies(res.headers['set-cookie']);
    if (res.statusCode !== 200 && res.statusCode !== 303) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
  const form = await page('/dashboard/sign-in');
  const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)?.[1] as string;
  const asked = await app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email, csrf }).toString(),
  });
  keepCookies(asked.headers['set-cookie']);
  const link = /(https?:\/\/\S+\/dashboard\/sign-in\/\S+)/.exec(mailer.lastMessageTo(email)?.text ?? '')?.[1] as string;
  await page(new URL(link).pathname);
  return { page, cookie: () => cookie };
}
