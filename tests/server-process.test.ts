import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerFolderPrefix } from '../src/lib/process-temp.js';
import { createTestApp, freePort, type TestApp } from './helpers/app.js';
import { within } from './helpers/within.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function waitFor(url: string, child: ChildProcess, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${url}`);
}

describe('the server process (what npm start runs)', () => {
  it('serves, redacts secrets from its logs, and stops gracefully on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    fs.chmodSync(t.config.dataDir, 0o755); // as an older install left it
    // What a crash left behind: the raw upload of a process that was killed a moment ago, and
    // the one of a process still at work (this one).
    const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-tmp-'));
    const killed = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => killed.once('exit', resolve));
    const crashed = fs.mkdtempSync(path.join(tempDir, ownerFolderPrefix(killed.pid as number, 0)));
    const current = fs.mkdtempSync(path.join(tempDir, ownerFolderPrefix(process.pid)));
    for (const dir of [crashed, current]) fs.writeFileSync(path.join(dir, 'upload'), 'voice');
    // Exactly what `npm start` runs: the built server in this one process (built first if src/ changed).
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      env: t.childEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, LOG_LEVEL: 'info', TMPDIR: tempDir }),
      detached: false,
    });
    let logs = '';
    child.stdout.on('data', (chunk) => {
      logs += chunk;
    });
    child.stderr.on('data', (chunk) => {
      logs += chunk;
    });
    await waitFor(`${base}/readyz`, child, 240_000);
    // One Node process: no TypeScript loader and no esbuild service beside the server.
    if (fs.existsSync('/proc')) {
      const children = fs
        .readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            return fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(child.pid);
          } catch {
            return false;
          }
        });
      expect(children).toEqual([]);
    }
    const { key } = await t.newAccount();
    const res = await fetch(`${base}/v1/collections`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'From a real socket' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // tsx forwards the signal to the server process and exits with its code.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs).toContain('listening');
    expect(logs).toContain('request completed');
    expect(logs).not.toContain(key);
    // Crash leftovers are removed before the server serves; work in progress is not.
    expect(fs.existsSync(crashed)).toBe(false);
    expect(fs.existsSync(current)).toBe(true);
    fs.rmSync(tempDir, { recursive: true, force: true });
    // DATA_DIR (database, voices, keys) is private to the service's user, and so is what it wrote there.
    expect(fs.statSync(t.config.dataDir).mode & 0o777).toBe(0o700);
    const written = fs.readdirSync(t.config.dataDir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(written.length).toBeGreaterThan(0);
    for (const entry of written) expect(fs.statSync(path.join(entry.parentPath, entry.name)).mode & 0o077).toBe(0);
  }, 300_000);
});

describe('npm start', () => {
  it('stops the server when npm itself gets SIGTERM, and exits', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // As an operator (or a process manager) runs it: npm, which runs the script through a shell.
    const npm = spawn('npm', ['start'], {
      env: t.childEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, LOG_LEVEL: 'warn' }),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    await waitFor(`${base}/readyz`, npm, 240_000);
    npm.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Nothing is left answering on the port: the server stopped with npm, it was not orphaned.
    await within(15_000, () =>
      fetch(`${base}/readyz`).then(
        () => false,
        () => true,
      ),
    );
  }, 300_000);
});
