/**
 * The docs as a new user runs them, outside every substitution of tests/docs-examples.test.ts: the
 * real `npm start` on a random free port with a fresh data directory and the development flag the
 * quick start documents (`WEBHOOK_ALLOW_PRIVATE_URLS=true`), then the shell blocks of README.md's
 * walk-through (curl, then its TypeScript file run with `npx tsx`), docs/quick-start.md and
 * docs/webhooks.md in that order in one real bash, in a directory of the checkout, with nothing
 * rewritten. The shell gets only PATH, HOME, the variables
 * the docs' `env` blocks tell the reader to set (the server's address and the webhook receiver's
 * port, each the documented value with this test's port) and the server's DATABASE_URL and
 * DATA_DIR, which the reader's CLI finds by default. The webhook receiver is started as the docs
 * start it (`npm run --silent webhook-receiver &`) and must print verified deliveries.
 *
 * bash and curl are the reader's tools: they must be on PATH (CI puts them in its bare PATH too);
 * without them the file is skipped and says why.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOnPath } from '../src/lib/executables.js';
import { freePort } from './helpers/app.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { type Block, commandBlocks, envSettings } from './helpers/docs-blocks.js';

const FILES = ['README.md', 'docs/quick-start.md', 'docs/webhooks.md'];
const root = process.cwd();
const blocks = FILES.map((file) => ({ file, blocks: commandBlocks(fs.readFileSync(file, 'utf8')) }));

const bash = findOnPath('bash');
const curl = findOnPath('curl');
const missing = [bash ? null : 'bash', curl ? null : 'curl'].filter(Boolean).join(' and ');

let database: TestDatabase;
let server: ChildProcess | null = null;
let serverLog = '';
let port = 0;
let receiverPort = 0;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-docs-run-data-'));
let workDir = '';

/** Kills a detached child's whole process group (npm and the node it runs; bash and its receiver). */
function killGroup(child: ChildProcess | null, signal: NodeJS.Signals = 'SIGTERM') {
  try {
    if (child?.pid) process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${serverLog}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`npm start was not ready within 60 s:\n${serverLog}`);
}

beforeAll(async () => {
  if (missing) return;
  // What CI's `npm run build` produced, or a build now when src/ is newer (npm start would do it too).
  execFileSync(process.execPath, ['scripts/start.mjs', 'build'], { cwd: root, stdio: 'inherit' });
  database = await createTestDatabase();
  port = await freePort();
  receiverPort = await freePort();
  server = spawn('npm', ['start'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      ...database.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    },
  });
  server.stdout?.on('data', (chunk) => (serverLog = (serverLog + chunk).slice(-20_000)));
  server.stderr?.on('data', (chunk) => (serverLog = (serverLog + chunk).slice(-20_000)));
  await waitReady(`http://127.0.0.1:${port}`, server);
  fs.mkdirSync(path.join(root, '.tmp'), { recursive: true });
  workDir = fs.mkdtempSync(path.join(root, '.tmp', 'docs-run-'));
  // The directory is inside the checkout, as the reader's shell is; its files stay out of the tree.
  fs.symlinkSync(path.join(root, 'examples'), path.join(workDir, 'examples'));
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    killGroup(server);
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    killGroup(server, 'SIGKILL');
  }
  await database?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** The value this test gives each variable of the docs' `env` blocks, from the documented one. */
function settingFor(name: string, documented: string): string {
  if (name === 'BASE_URL') {
    expect(documented, 'BASE_URL as the docs give it').toBe('http://localhost:3000');
    return `http://localhost:${port}`;
  }
  if (name === 'WEBHOOK_RECEIVER_PORT') {
    expect(documented, 'WEBHOOK_RECEIVER_PORT as the docs give it').toBe('4000');
    return String(receiverPort);
  }
  throw new Error(`an env block sets ${name}, which this test does not know how to give`);
}

/**
 * The shell blocks in order; a TypeScript block the text tells the reader to save as a file
 * (README's `walk-through.ts`) is saved so and run as the text says, `npx tsx <file>`.
 */
function script(): string {
  const parts = ['set -euo pipefail'];
  for (const { file, blocks: fileBlocks } of blocks) {
    for (const block of fileBlocks) {
      if (block.kind === 'sh') parts.push(`echo "### ${file}:${block.line}" >&2`, block.body);
      if (block.kind === 'ts' && block.file) {
        fs.writeFileSync(path.join(workDir, block.file), block.body);
        parts.push(`echo "### ${file}:${block.line}" >&2`, `npx tsx ${block.file}`);
      }
    }
  }
  return `${parts.join('\n')}\n`;
}

describe.skipIf(missing !== '')(`the docs run on a new machine${missing ? ` (skipped: no ${missing} on PATH)` : ''}`, () => {
  it('the quick start tells the reader to start the server with the development webhook flag', () => {
    expect(fs.readFileSync('docs/quick-start.md', 'utf8')).toContain('WEBHOOK_ALLOW_PRIVATE_URLS=true npm start');
  });

  it("README's walk-through, the quick start and the webhooks guide run in one shell against npm start, the receiver verifying deliveries", async () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      // Where the reader's CLI finds the server's data by default (the checkout's ./data).
      ...database.env,
      DATA_DIR: dataDir,
    };
    for (const { blocks: fileBlocks } of blocks) {
      for (const block of fileBlocks.filter((b: Block) => b.kind === 'env')) {
        for (const [name, documented] of envSettings(block)) env[name] = settingFor(name, documented);
      }
    }
    expect(Object.keys(env)).toEqual(expect.arrayContaining(['BASE_URL', 'WEBHOOK_RECEIVER_PORT']));

    const shell = spawn(bash as string, ['-c', script()], {
      cwd: workDir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    shell.stdout?.on('data', (chunk) => (out += chunk));
    shell.stderr?.on('data', (chunk) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
    killGroup(shell);
    const failedAt = err.match(/### (\S+)\n(?![\s\S]*### )/)?.[1] ?? '?';
    const report = `${failedAt}:\n${err.slice(-4000)}\n--- stdout:\n${out.slice(-4000)}\n--- server:\n${serverLog.slice(-3000)}`;
    expect(code, report).toBe(0);
    // One test event in the quick start; a test event and its redelivery in the webhooks guide.
    // (curl prints no newline after a JSON answer, so the receiver's line may follow it on one line.)
    // The quick start's recording.completed happened before its webhook existed: never sent to it.
    const verified = [...out.matchAll(/verified (\S+) (whd_\w+) \(([^)]*)\)\n/g)].map(
      ([, event, , schemes]) => `${event} ${schemes}`,
    );
    expect(verified, report).toEqual(Array(3).fill('webhook.test Standard Webhooks + X-Service-Signature'));
    expect(out).not.toContain('refused:');
    // README's TypeScript walk-through, run with the key of its curl walk-through.
    expect(out, report).toMatch(/^null \{ deleted: true, id: '[^']+' \}$/m);
  }, 120_000);
});

describe('docs/entities.md on a new machine', () => {
  const entities = fs.readFileSync('docs/entities.md', 'utf8');

  it("pins the mppx and viem this checkout's lock installs (a plain `npm install mppx` ends in ERESOLVE)", () => {
    const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version: string }> };
    const pinned = /^npm install mppx@(\S+) viem@(\S+)$/m.exec(entities);
    expect(pinned?.slice(1)).toEqual([lock.packages['node_modules/mppx']?.version, lock.packages['node_modules/viem']?.version]);
  });

  it('the mppx example publishes a name of its own, not one the flow before it took', () => {
    const published = [...entities.matchAll(/"name":\s*"([^"]+)"/g)].map((m) => m[1]);
    const example = /examples\/mpp-pay\.ts http:\/\/localhost:3000 "([^"]+)"/.exec(entities)?.[1];
    expect(published).toContain('Orbit Concierge');
    expect(example).toBeDefined();
    expect(published).not.toContain(example);
  });
});
