/**
 * The ffmpeg slots are shared by every customer: a bounded, fair queue keeps one sender's
 * expensive uploads from delaying everybody else's (src/lib/fair-scheduler.ts), and a full queue
 * answers 503 `audio_busy` with Retry-After instead of letting waits grow without end.
 */
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
});

async function appWith(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp({ env });
  apps.push(t);
  return t;
}

/** A new account with a collection of `count` users: its API key and the users. */
async function accountWithUsers(t: TestApp, count: number) {
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

describe('a bounded audio queue', () => {
  it('answers 503 audio_busy with Retry-After, on the API and on the recorder, once the queue is full', async () => {
    const t = await appWith({ AUDIO_CONCURRENCY: '1', AUDIO_QUEUE_MAX: '1' });
    const account = await accountWithUsers(t, 3);
    const speech = fs.readFileSync(speechWav());
    // One runs, one waits, the third finds the line full.
    for (const send of [account.put, account.record]) {
      const answers = await Promise.all(account.users.map((user) => send(user, speech)));
      expect(answers.map((res) => res.statusCode).sort()).toEqual([200, 200, 503]);
      const busy = answers.find((res) => res.statusCode === 503);
      expect(busy?.headers['retry-after']).toBe('5');
      expect(busy?.json()).toEqual({
        error: {
          type: 'api_error',
          code: 'audio_busy',
          message: expect.stringMatching(/try again/),
          request_id: busy?.headers['x-request-id'],
        },
      });
    }
  });
});
