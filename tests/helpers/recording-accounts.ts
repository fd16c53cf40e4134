/**
 * Apps with their own settings, closed after each test, and accounts with users to record for:
 * the recording-fairness tests (bounded queue, hostile load) share these.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { createTestApp, type TestApp } from './app.js';
import { ffmpegPath } from './binaries.js';

const apps: TestApp[] = [];
const gateDirs: string[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  for (const dir of gateDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

export async function appWith(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp({ env });
  apps.push(t);
  return t;
}

/** A new account with a collection of `count` users: its API key and the users. */
export async function accountWithUsers(t: TestApp, count: number) {
  const { key } = await t.newAccount();
  const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class' } })).json();
  const users: { id: string; record_url: string }[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.request({
      method: 'POST',
      url: `/v1/collections/${collection.id}/users`,
      key,
      json: { email: `p${i}@example.com`, first_name: 'Ana', last_name: `Diaz ${i}` },
    });
    expect(res.statusCode).toBe(201);
    users.push(res.json());
  }
  const put = (user: { id: string }, body: Buffer) =>
    t.request({
      method: 'PUT',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
      headers: { 'content-type': 'application/octet-stream' },
      payload: body,
    });
  const record = (user: { record_url: string }, body: Buffer) =>
    t.request({
      method: 'POST',
      url: `${new URL(user.record_url).pathname}/recording`,
      headers: { 'content-type': 'audio/webm' },
      payload: body,
    });
  return { key, users, put, record };
}

/**
 * The real ffmpeg behind a gate, for FFMPEG_PATH: every run waits until `open()` is called, so a
 * test can hold uploads in the queue for as long as it needs and then let them all be processed.
 */
export function gatedFfmpeg(): { path: string; open(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-gated-ffmpeg-'));
  gateDirs.push(dir);
  const gate = path.join(dir, 'closed');
  const script = path.join(dir, 'ffmpeg');
  fs.writeFileSync(gate, '');
  // ffmpeg runs with PATH only in its environment, so the paths are written into the script.
  fs.writeFileSync(script, `#!/bin/sh\nwhile [ -e '${gate}' ]; do sleep 0.02; done\nexec '${ffmpegPath()}' "$@"\n`, {
    mode: 0o755,
  });
  return { path: script, open: () => fs.rmSync(gate, { force: true }) };
}
