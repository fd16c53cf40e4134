/**
 * The ffmpeg slots are shared by every customer: a bounded, fair queue keeps one sender's
 * expensive uploads from delaying everybody else's (src/lib/fair-scheduler.ts). An account's
 * burst of uploads waits its turn; beyond its own depth (AUDIO_QUEUE_PER_ACCOUNT) that account
 * alone is answered 429 `rate_limited`, and a full queue (AUDIO_QUEUE_MAX) answers 503
 * `audio_busy`, both with Retry-After, instead of letting waits grow without end.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { speechWav } from './helpers/audio.js';
import { accountWithUsers, appWith, gatedFfmpeg } from './helpers/recording-accounts.js';
import { within } from './helpers/within.js';

describe("an account's burst of uploads", () => {
  it('queues 50 concurrent uploads on a 2-core server and answers the 51st 429 while another account is served', async () => {
    const ffmpeg = gatedFfmpeg();
    const t = await appWith({ AUDIO_CONCURRENCY: '2', FFMPEG_PATH: ffmpeg.path });
    expect(t.config.audioQueuePerAccount).toBe(50);
    const burst = await accountWithUsers(t, 51);
    const other = await accountWithUsers(t, 1);
    const speech = fs.readFileSync(speechWav());

    // The gate holds the first run, so all 50 are in the line at once: one running, 49 waiting.
    const uploads = burst.users.slice(0, 50).map((user) => burst.put(user, speech));
    await within(20_000, async () => t.deps.audio.queued?.() === 49);
    const refused = await burst.put(burst.users[50] as { id: string }, speech);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('5');
    expect(refused.json()).toEqual({
      error: {
        type: 'rate_limit_error',
        code: 'rate_limited',
        message: expect.stringMatching(/already has 50 recordings being processed/),
        request_id: refused.headers['x-request-id'],
      },
    });
    const otherUpload = other.put(other.users[0] as { id: string }, speech);

    ffmpeg.open();
    const otherAnswer = await otherUpload;
    expect(otherAnswer.statusCode, otherAnswer.body).toBe(200);
    // How long the burst takes is measured alone, in recording-fairness.timing.test.ts.
    const answers = await Promise.all(uploads);
    expect(answers.map((res) => res.statusCode)).toEqual(answers.map(() => 200));
    // Room again: the account's next upload is accepted.
    expect((await burst.put(burst.users[50] as { id: string }, speech)).statusCode).toBe(200);
    // The burst's 50 runs go one after another on its one slot: seconds on an idle machine,
    // minutes under a CPU hog, which this test must survive.
  }, 600_000);
});

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
