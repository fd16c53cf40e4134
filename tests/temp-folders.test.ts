/**
 * Temp folders (raw voice uploads, logos, export CSVs) belong to the process that made them:
 * the sweep removes those of processes that are gone, however young, and never those of a
 * running one; a server killed with SIGKILL in the middle of an upload leaves nothing once the
 * next one has started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownerFolderPrefix, removeLeftoverTempFolders } from '../src/lib/process-temp.js';
import { createTestApp, freePort, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';
import { within } from './helpers/within.js';

let tempDir: string;
const running: ChildProcess[] = [];
beforeAll(() => {
  tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-sweep-test-'));
});
afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
});
afterAll(() => fs.rmSync(tempDir, { recursive: true, force: true }));

/** A process that runs until it is killed. */
function startIdleProcess(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  running.push(child);
  return child;
}

/** A temp folder as process `pid` makes it (with a voice inside), `age` ms old. */
function folderOf(pid: number, started?: number, age = 0): string {
  const dir = fs.mkdtempSync(path.join(tempDir, ownerFolderPrefix(pid, started)));
  fs.mkdirSync(path.join(dir, 'audio-x'));
  fs.writeFileSync(path.join(dir, 'audio-x', 'input'), 'voice');
  const when = new Date(Date.now() - age);
  fs.utimesSync(dir, when, when);
  return dir;
}

describe('the sweep of temp folders', () => {
  it('removes the folder of a process that has exited, even a fresh one, and keeps a running process’s', async () => {
    const exited = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    const exitedPid = exited.pid as number;
    await new Promise((resolve) => exited.once('exit', resolve));
    const live = startIdleProcess();
    const ofExited = folderOf(exitedPid, 0);
    const ofLive = folderOf(live.pid as number, undefined, 2 * 3_600_000);
    const ofThisProcess = folderOf(process.pid);

    expect(await removeLeftoverTempFolders({ tempDir })).toBe(1);
    expect(fs.existsSync(ofExited)).toBe(false);
    expect(fs.existsSync(ofLive)).toBe(true);
    expect(fs.existsSync(ofThisProcess)).toBe(true);

    // Once its owner is gone, the next sweep takes it.
    live.kill('SIGKILL');
    await new Promise((resolve) => live.once('exit', resolve));
    expect(await removeLeftoverTempFolders({ tempDir })).toBe(1);
    expect(fs.existsSync(ofLive)).toBe(false);
  });

  it('does not mistake a process that was given a dead owner’s pid for the owner', async () => {
    const reused = folderOf(process.pid, 1);
    await removeLeftoverTempFolders({ tempDir });
    expect(fs.existsSync(reused)).toBe(false);
  });

  it('removes folders of older versions (no owner) once untouched for an hour, not before', async () => {
    const old = fs.mkdtempSync(path.join(tempDir, 'voicename-audio-'));
    const recent = fs.mkdtempSync(path.join(tempDir, 'voicename-export-'));
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
    const unrelated = fs.mkdtempSync(path.join(tempDir, 'someone-else-'));
    fs.utimesSync(unrelated, twoHoursAgo, twoHoursAgo);
    await removeLeftoverTempFolders({ tempDir, unownedOlderThanMs: 3_600_000 });
    expect([fs.existsSync(old), fs.existsSync(recent), fs.existsSync(unrelated)]).toEqual([false, true, true]);
  });
});

describe('a server killed with SIGKILL in the middle of an upload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  /** Starts the server the way `npm start` does, with its own temp directory and ffmpeg. */
  async function startServer(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['scripts/start.mjs'], {
      env: t.childEnv({ PORT: String(port), HOST: '127.0.0.1', BASE_URL: base, LOG_LEVEL: 'warn', ...env }),
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    running.push(child);
    await within(240_000, async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
      return fetch(`${base}/readyz`).then(
        (res) => res.ok,
        () => false,
      );
    });
    return { child, base };
  }

  it('leaves no voice in the temp directory once the next server has started', async () => {
    const serverTemp = fs.mkdtempSync(path.join(tempDir, 'server-'));
    // An ffmpeg that never finishes decoding: the upload is caught with its raw file on disk.
    const stuck = path.join(serverTemp, 'ffmpeg-stuck.sh');
    fs.writeFileSync(
      stuck,
      // Node stands in for `sleep`: CI's SQLite pass has nothing but node, npm, sh and env on PATH.
      `#!/bin/sh\nfor arg in "$@"; do [ "$arg" = -i ] && echo $$ > '${stuck}.pid' && exec '${process.execPath}' -e 'setTimeout(() => {}, 60000)'; done\nexec '${ffmpegPath()}' "$@"\n`,
      { mode: 0o700 },
    );
    const first = await startServer({ TMPDIR: serverTemp, FFMPEG_PATH: stuck });
    const { key } = await t.newAccount();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const collection = (await (
      await fetch(`${first.base}/v1/collections`, { method: 'POST', headers, body: JSON.stringify({ name: 'Killed' }) })
    ).json()) as { id: string };
    const user = (await (
      await fetch(`${first.base}/v1/collections/${collection.id}/users`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ email: 'killed@example.com', first_name: 'Killed' }),
      })
    ).json()) as { id: string };
    void fetch(`${first.base}/v1/collections/${collection.id}/users/${user.id}/recording`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    }).catch(() => undefined);
    const voices = () =>
      fs
        .readdirSync(serverTemp, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile() && entry.name.startsWith('input-'));
    // ffmpeg has started on the raw file.
    await within(30_000, async () => fs.existsSync(`${stuck}.pid`) && voices().length > 0);

    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    process.kill(Number(fs.readFileSync(`${stuck}.pid`, 'utf8')), 'SIGKILL');
    expect(voices().length).toBe(1);

    const second = await startServer({ TMPDIR: serverTemp });
    expect(voices()).toEqual([]);
    expect(fs.readdirSync(serverTemp).filter((name) => name.startsWith('voicename-'))).toEqual([]);
    second.child.kill('SIGTERM');
    await new Promise((resolve) => second.child.once('exit', resolve));
  }, 300_000);
});
