/**
 * The ffmpeg slots are shared by every customer: a bounded, fair queue keeps one sender's
 * expensive uploads from delaying everybody else's (src/lib/fair-scheduler.ts), and a full queue
 * answers 503 `audio_busy` with Retry-After instead of letting waits grow without end.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { speechWav } from './helpers/audio.js';
import { accountWithUsers, appWith } from './helpers/recording-accounts.js';

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
