/**
 * The Python client (packages/python) against the real service over HTTP: its unittest suite runs
 * in the machine's `python3` with this server's address, a fresh account's key and a WAV of a
 * spoken name in the environment. Any failing Python test fails this test, with the suite's output.
 * The `python` blocks of its README, the root README and every guide in docs/ run as written too
 * (the docs/README.md convention: a ```python block runs unless marked `no-run`), each guide with a
 * fresh account's key in `API_KEY` and the server's address in `BASE_URL`.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { pythonBlocks } from './helpers/docs-blocks.js';

const PACKAGE = path.resolve('packages/python');
const DOCS = path.resolve('docs');
/** The guides with runnable python blocks. */
const guidesWithPython = fs
  .readdirSync(DOCS)
  .filter((file) => file.endsWith('.md') && file !== 'README.md')
  .sort()
  .filter((file) => pythonBlocks(fs.readFileSync(path.join(DOCS, file), 'utf8')).length > 0);
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

/**
 * Runs each block as its own script in a fresh directory holding `name.wav`, with the
 * `http://localhost:3000` they are written for meaning this test's server; answers their output.
 */
async function runBlocks(file: string, env: Record<string, string>): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-python-docs-'));
  try {
    // The guides upload the checkout's sample, run from the checkout's root.
    fs.mkdirSync(path.join(dir, 'examples'));
    fs.copyFileSync(path.resolve('examples/name.wav'), path.join(dir, 'examples', 'name.wav'));
    fs.copyFileSync(path.resolve('examples/name.wav'), path.join(dir, 'name.wav'));
    let all = '';
    const blocks = pythonBlocks(fs.readFileSync(file, 'utf8'));
    if (blocks.length === 0) throw new Error(`${file} has no python block`);
    for (const [index, block] of blocks.entries()) {
      fs.writeFileSync(path.join(dir, `block_${index}.py`), block.body.replaceAll('http://localhost:3000', t.url));
      const { status, output } = await runPython([`block_${index}.py`], env, dir);
      expect(status, `${path.relative(process.cwd(), file)}:${block.line}, python block:\n${output}`).toBe(0);
      all += output;
    }
    return all;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
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

  it('runs the python blocks of its README and the root README as written', { timeout: 60_000 }, async () => {
    const readme = await runBlocks(path.join(PACKAGE, 'README.md'), {
      VOICENAME_API_KEY: (await t.newAccount()).key,
      VOICENAME_BASE_URL: t.url,
    });
    expect(readme).toContain('not recorded yet: recording_missing');
    expect(readme).toContain(`${t.url}/p/`);
    const walkThrough = await runBlocks(path.resolve('README.md'), { API_KEY: (await t.newAccount()).key, BASE_URL: t.url });
    expect(walkThrough).toContain('Class of 2027 0');
    expect(walkThrough).toMatch(/^None \{'deleted': True, 'id': '[^']+'\}$/m);
  });

  it('finds python examples in the guides that use the client', () => {
    expect(guidesWithPython).toEqual(
      expect.arrayContaining(['exports.md', 'invitations.md', 'play-links.md', 'quick-start.md', 'recordings.md', 'webhooks.md']),
    );
  });

  /** What a guide's blocks print that shows they did what the guide says (each block also checks itself). */
  const printed: Record<string, (url: string) => (string | RegExp)[]> = {
    'quick-start.md': (url) => [`${url}/p/`, 'Speakers 2026'],
    'recordings.md': (url) => [`${url}/p/`, 'row 4, E-mail: '],
    'play-links.md': (url) => [`Aroha Ngata ${url}/p/`, 'Jun Watanabe (not recorded yet)'],
    'webhooks.md': () => [
      'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W recording.completed https://example.com/p/abc',
      /^succeeded succeeded \[/m,
    ],
    'exports.md': () => [/^graduation-2026\.zip: \d+ bytes$/m],
    'invitations.md': () => ["1 {'recently_invited': 0, 'unsubscribed': 0}"],
  };

  it.each(guidesWithPython)('runs the python blocks of docs/%s as written', { timeout: 60_000 }, async (file) => {
    const output = await runBlocks(path.join(DOCS, file), { API_KEY: (await t.newAccount()).key, BASE_URL: t.url });
    for (const expected of printed[file]?.(t.url) ?? []) {
      if (typeof expected === 'string') expect(output).toContain(expected);
      else expect(output).toMatch(expected);
    }
  });
});
