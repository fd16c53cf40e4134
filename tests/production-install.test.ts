/**
 * docs/deploy.md's production install, as written, in a temporary directory: the files its
 * `tar -czf` line ships (this checkout's dist/, built first when src/ is newer), then its
 * `npm ci --omit=dev …` line, from the npm cache this checkout's own install filled. The built
 * server then boots there, with none of the development dependencies: it answers, serves the
 * API reference from the vendored Scalar bundle, lays out cards with the vendored fonts, and the
 * CLI creates a key. The installed tree must take at most a third of this checkout's full
 * node_modules on disk.
 * better-sqlite3 ships prebuilt binaries in its package, so the install compiles nothing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';

const doc = fs.readFileSync('docs/deploy.md', 'utf8');
const root = process.cwd();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-production-'));
const tree = path.join(tmp, 'voicename');

/** The words of the page's first command line that starts with `command`, `command` left out. */
function docLine(command: string): string[] {
  const line = doc.split('\n').find((l) => l.startsWith(`${command} `));
  if (!line) throw new Error(`no line "${command} …" in docs/deploy.md`);
  return line.slice(command.length).trim().split(/\s+/);
}

/** Disk use as `du` counts it: allocated blocks, each hard-linked file once, symbolic links not followed. */
function diskUsage(dir: string, seen = new Set<string>()): number {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    const stat = fs.lstatSync(file);
    const id = `${stat.dev}:${stat.ino}`;
    if (seen.has(id)) continue;
    seen.add(id);
    bytes += stat.blocks * 512;
    if (entry.isDirectory()) bytes += diskUsage(file, seen);
  }
  return bytes;
}

let port = 0;
let server: ChildProcess | null = null;
let log = '';
let env: Record<string, string> = {};

beforeAll(async () => {
  // A package missing from the tree must fail here, not be found in a node_modules above it.
  for (let dir = path.dirname(tree); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    expect(fs.existsSync(path.join(dir, 'node_modules')), `${dir}/node_modules would hide a missing package`).toBe(false);
  }
  execFileSync(process.execPath, ['scripts/start.mjs', 'build'], { cwd: root, stdio: 'inherit' });
  for (const shipped of docLine('tar -czf voicename.tar.gz')) {
    fs.cpSync(path.join(root, shipped), path.join(tree, shipped), { recursive: true });
  }
  execFileSync(
    'npm',
    ['ci', '--omit=dev', ...docLine('npm ci --omit=dev'), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'],
    {
      cwd: tree,
      stdio: 'inherit',
    },
  );

  port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmp,
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(tmp, 'data'),
    HOST: '127.0.0.1',
    PORT: String(port),
    BASE_URL: baseUrl,
  };
  server = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/main.js'], {
    cwd: tree,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk) => (log += chunk));
  server.stderr?.on('data', (chunk) => (log += chunk));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited: ${log}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server is not ready: ${log}`);
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the production install of docs/deploy.md', () => {
  const url = (pathname: string) => `http://127.0.0.1:${port}${pathname}`;

  it('holds none of the development dependencies, and at most a third of a full install on disk', () => {
    for (const dev of ['typescript', 'tsx', 'esbuild', 'vitest', '@scalar/api-reference', '@expo-google-fonts/noto-sans']) {
      expect(fs.existsSync(path.join(tree, 'node_modules', dev)), dev).toBe(false);
    }
    const production = diskUsage(path.join(tree, 'node_modules'));
    const full = diskUsage(fs.realpathSync(path.join(root, 'node_modules')));
    expect(production, `${Math.round(production / 2 ** 20)} MB against ${Math.round(full / 2 ** 20)} MB`).toBeLessThanOrEqual(
      full / 3,
    );
  });

  it('boots: /healthz answers 200', async () => {
    expect((await fetch(url('/healthz'))).status).toBe(200);
  });

  it('serves the API reference with the vendored Scalar bundle', async () => {
    const page = await fetch(url('/docs/reference'));
    expect(page.status).toBe(200);
    const script = /\/docs\/assets\/scalar\.[0-9a-f]+\.js/.exec(await page.text())?.[0];
    expect(script, 'the page loads the bundle').toBeDefined();
    const bundle = await fetch(url(script as string), { headers: { 'accept-encoding': 'identity' } });
    expect(bundle.status).toBe(200);
    const shipped = path.join(tree, 'dist/vendor/@scalar/api-reference');
    expect((await bundle.arrayBuffer()).byteLength).toBe(fs.statSync(path.join(shipped, 'dist/browser/standalone.js')).size);
    expect(fs.readFileSync(path.join(shipped, 'LICENSE'), 'utf8')).toContain('MIT License');
  });

  it('lays out cards with the vendored fonts, their licences beside them', () => {
    const files = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const { FontBook } = await import('./dist/cards/fonts.js'); console.log(JSON.stringify((await new FontBook().prepare(['Siobhán', 'محمد', '李小龙'], 700)).files));",
      ],
      { cwd: tree, env, encoding: 'utf8' },
    );
    const used = JSON.parse(files) as string[];
    expect(used).toHaveLength(3);
    for (const file of used) {
      expect(file.startsWith(path.join(tree, 'dist', 'vendor'))).toBe(true);
      const family = path.dirname(path.dirname(file));
      expect(fs.readFileSync(path.join(family, 'LICENSE_FONT'), 'utf8')).toContain('SIL Open Font License');
    }
  });

  it("runs the page's CLI: a key it creates is accepted by the server", async () => {
    const args = ['dist/cli.js', 'keys', 'create', ...docLine('node dist/cli.js keys create')];
    const created = execFileSync(process.execPath, args, { cwd: tree, env, encoding: 'utf8' });
    const { key } = JSON.parse(created) as { key: string };
    const collections = await fetch(url('/v1/collections'), { headers: { authorization: `Bearer ${key}` } });
    expect(collections.status).toBe(200);
  });
});
