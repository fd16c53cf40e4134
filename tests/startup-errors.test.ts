/**
 * A server that cannot start says why in one line naming the setting to change, and exits
 * non-zero: a port in use, a PostgreSQL server that is not there, a DATA_DIR it cannot write or
 * that is no storage at all (a kernel pseudo-filesystem, where it used to spin forever).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-startup-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Starts the server as `npm start` does; resolves with its exit code and what it wrote to stderr. */
async function startServer(settings: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const port = settings.PORT ?? String(await freePort());
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    env: {
      ...inherited,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      BASE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: path.join(tmp, 'data'),
      ...settings,
      PORT: port,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // A server that does start would answer; these must not: kill one that is still up after the budget.
  const timer = setTimeout(() => child.kill('SIGKILL'), 200_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  // The build's progress line (first start after a change to src/) is not part of the answer.
  return { code, stderr: stderr.replace(/^Building dist\/.*\n/m, '').trim() };
}

/** One line, no stack trace. */
function expectOneLine(stderr: string): void {
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('a server that cannot start', () => {
  it('names PORT when the port is in use', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const { code, stderr } = await startServer({ PORT: String(port) });
      expect(code).not.toBe(0);
      expectOneLine(stderr);
      expect(stderr).toBe(`Cannot start: PORT ${port} is in use: stop the other server or set PORT`);
    } finally {
      taken.close();
    }
  }, 240_000);

  it('names DATABASE_URL when PostgreSQL cannot be reached, without its password', async () => {
    const port = await freePort();
    const { code, stderr } = await startServer({
      DATABASE_URL: `postgres://voicename:hunter2secret@127.0.0.1:${port}/voicename`,
    });
    expect(code).not.toBe(0);
    expectOneLine(stderr);
    expect(stderr).toMatch(
      /^Cannot start: DATABASE_URL: PostgreSQL at 127\.0\.0\.1:\d+\/voicename cannot be reached \(ECONNREFUSED\)/,
    );
    expect(stderr).not.toContain('hunter2secret');
  }, 240_000);

  it('names DATA_DIR when it cannot be written', async () => {
    const file = path.join(tmp, 'a-file');
    fs.writeFileSync(file, '');
    const { code, stderr } = await startServer({ DATA_DIR: path.join(file, 'data') });
    expect(code).not.toBe(0);
    expectOneLine(stderr);
    expect(stderr).toMatch(/^Cannot start: DATA_DIR \S+ cannot be used \(ENOTDIR: part of the path is a file, not a directory\)/);
  }, 240_000);

  it('refuses a DATA_DIR on a kernel pseudo-filesystem at once instead of spinning', async () => {
    for (const dir of ['/proc/voicename', '/sys/voicename']) {
      const { code, stderr } = await startServer({ DATA_DIR: dir });
      expect(code).not.toBe(0);
      expectOneLine(stderr);
      expect(stderr).toMatch(new RegExp(`^Cannot start: DATA_DIR ${dir} is on (procfs|sysfs)`));
    }
  }, 240_000);
});
