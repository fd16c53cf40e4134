/**
 * The Python client (packages/python) against the real service over HTTP: its unittest suite runs
 * in the machine's `python3` with this server's address, a fresh account's key and a WAV of a
 * spoken name in the environment. Any failing Python test fails this test, with the suite's output.
 * Its README's quick start runs as written too.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

const PACKAGE = path.resolve('packages/python');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const version = python.status === 0 ? python.stdout.trim() : null;

let t: TestApp & { url: string };

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
});
afterAll(async () => {
  await t?.close();
});

/** Runs python3 without blocking the event loop (the server answering it lives in this process). */
function runPython(
  args: string[],
  env: Record<string, string>,
  cwd = PACKAGE,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', args, {
      cwd,
      env: { PATH: process.env.PATH ?? '', PYTHONPATH: path.join(PACKAGE, 'src'), PYTHONDONTWRITEBYTECODE: '1', ...env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** The README's first `python` block. */
function readmeQuickStart(): string {
  const readme = fs.readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');
  const block = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('packages/python/README.md has no python block');
  return block;
}

describe.skipIf(!version)(`Python client (${version ?? 'skipped: no python3 on PATH'})`, () => {
  it('passes its unittest suite against the running server', { timeout: 120_000 }, async () => {
    const { key } = await t.newAccount();
    const { status, output } = await runPython(['-m', 'unittest', 'discover', '-s', 'tests', '-v'], {
      VOICENAME_BASE_URL: t.url,
      VOICENAME_API_KEY: key,
      VOICENAME_TEST_WAV: speechWav('Siobhan Ni Bhriain', 'python-client'),
    });
    if (status !== 0) console.error(output);
    expect(status, output).toBe(0);
    expect(output).toMatch(/^OK$/m);
    // A test skipped for want of the environment above would pass silently.
    expect(output).not.toMatch(/skipped/i);
  });

  it('runs the README quick start as written', { timeout: 60_000 }, async () => {
    const { key } = await t.newAccount();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-python-readme-'));
    try {
      fs.copyFileSync(speechWav('Ada Lovelace', 'python-readme'), path.join(dir, 'name.wav'));
      fs.writeFileSync(path.join(dir, 'quick_start.py'), readmeQuickStart());
      const { status, output } = await runPython(['quick_start.py'], { VOICENAME_API_KEY: key, VOICENAME_BASE_URL: t.url }, dir);
      expect(status, output).toBe(0);
      expect(output).toContain(`${t.url}/p/`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
