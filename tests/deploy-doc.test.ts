/**
 * docs/deploy.md, run as written: the environment file and the systemd unit start the built
 * server in production mode; every shell line runs in order (the CLI, backup, restore), with the
 * paths moved into a temporary directory. `systemctl stop` and `start` become what systemd does
 * (SIGTERM and a wait for a clean exit; the unit's ExecStart). The build and the production
 * install (`npm ci`, `npm run build`, the tar file, `npm ci --omit=dev …`) run in
 * tests/production-install.test.ts, on a copy: here the checkout is the installed tree. A command
 * the test does not know fails it, so the page cannot gain an untested command.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';

const doc = fs.readFileSync('docs/deploy.md', 'utf8');
const blocks = [...doc.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, body: m[2] as string }));
const root = process.cwd();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-deploy-'));
const moved = (text: string) =>
  text
    .replaceAll('/var/lib/voicename', path.join(tmp, 'data'))
    .replaceAll('/var/backups/voicename', path.join(tmp, 'backups'))
    .replaceAll('/opt/voicename', root);

/** The build and the production install: tests/production-install.test.ts runs them. */
const INSTALL_LINES = [
  /^npm ci$/,
  /^npm run build$/,
  /^tar -czf voicename\.tar\.gz /,
  /^tar -xzf voicename\.tar\.gz$/,
  /^npm ci --omit=dev/,
];

let port = 0;
let env: Record<string, string> = {};
let server: ChildProcess | null = null;
let log = '';

function settings(): Record<string, string> {
  const file = blocks.find((b) => b.lang === 'ini' && b.body.includes('NODE_ENV='));
  if (!file) throw new Error('no environment file in docs/deploy.md');
  const values = Object.fromEntries(
    file.body
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), moved(line.slice(line.indexOf('=') + 1))]),
  );
  // The operator's shell tools (mkdir, tar, cp, rm) even where the test run hides system programs.
  const PATH = [process.env.PATH ?? '', '/usr/local/bin', '/usr/bin', '/bin'].join(':');
  return { ...values, PORT: String(port), PATH, HOME: process.env.HOME ?? tmp };
}

function execStart(): string[] {
  const unit = blocks.find((b) => b.lang === 'ini' && b.body.includes('[Service]'));
  const line = unit?.body.split('\n').find((l) => l.startsWith('ExecStart='));
  if (!line) throw new Error('no ExecStart in the unit');
  const [node, ...args] = line.slice('ExecStart='.length).split(' ');
  expect(node).toBe('/usr/bin/node');
  return args;
}

async function startServer(): Promise<void> {
  log = '';
  server = spawn(process.execPath, execStart(), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.on('data', (chunk) => (log += chunk));
  server.stderr?.on('data', (chunk) => (log += chunk));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited: ${log}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server not ready: ${log}`);
}

async function stopServer(): Promise<void> {
  const child = server;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  expect(await exited, log).toBe(0);
  server = null;
}

beforeAll(async () => {
  port = await freePort();
  env = settings();
  // What CI's `npm run build` produced, or a build now when src/ is newer.
  execFileSync(process.execPath, ['scripts/start.mjs', 'build'], { cwd: root, stdio: 'inherit' });
}, 300_000);
afterAll(async () => {
  if (server && server.exitCode === null) server.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('docs/deploy.md, one machine', () => {
  it('runs as written: the unit starts the server in production, then the CLI, backup and restore', async () => {
    let key = '';
    let collection = '';
    for (const block of blocks.filter((b) => b.lang === 'sh')) {
      for (const raw of block.body.split('\n').map((l) => l.trim())) {
        if (raw === '' || raw.startsWith('#')) continue;
        const line = moved(raw);
        if (raw === 'cd /opt/voicename' || INSTALL_LINES.some((pattern) => pattern.test(raw))) continue;
        if (raw === 'systemctl daemon-reload') continue;
        if (raw === 'systemctl enable --now voicename' || raw === 'systemctl start voicename') {
          await startServer();
          continue;
        }
        if (raw === 'systemctl stop voicename') {
          await stopServer();
          continue;
        }
        if (raw.startsWith('systemctl')) throw new Error(`a systemctl line the test does not know: ${raw}`);
        if (!/^(node dist\/cli\.js |mkdir |tar |cp |rm )/.test(raw)) throw new Error(`an untested command: ${raw}`);
        const out = execFileSync('sh', ['-c', line], { cwd: root, env, encoding: 'utf8' });
        if (raw.includes('keys create')) {
          key = (JSON.parse(out) as { key: string }).key;
          // Something to find again after the restore.
          const created = await fetch(`http://127.0.0.1:${port}/v1/collections`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'Before the backup' }),
          });
          expect(created.status).toBe(201);
          collection = ((await created.json()) as { id: string }).id;
        }
      }
    }
    expect(server, 'the page ends with the service running').not.toBeNull();
    // After the restore: the same key, the same collection.
    const restored = await fetch(`http://127.0.0.1:${port}/v1/collections/${collection}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(restored.status).toBe(200);
    expect(fs.existsSync(path.join(tmp, 'backups', 'voicename.db'))).toBe(true);
    expect(fs.existsSync(path.join(tmp, 'backups', 'blobs.tar.gz'))).toBe(true);
    await stopServer();
  }, 180_000);
});
