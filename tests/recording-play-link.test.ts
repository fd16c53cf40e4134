/**
 * Recordings and play links together, through the real API: the link a recording creates
 * resolves at once, follows re-recordings, and stops resolving the moment the recording or the
 * user is deleted, even though resolved tokens are cached.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  // A long cache lifetime: anything but explicit invalidation would serve stale links.
  t = await createTestApp({ env: { PLAY_LINK_CACHE_TTL_MS: '600000' } });
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

async function userWithRecording(text: string) {
  return userIn(await newCollection(), text);
}

async function newCollection(): Promise<string> {
  return (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'c' } })).json().id;
}

async function userIn(collectionId: string, text: string) {
  const collection = { id: collectionId };
  const user = (
    await t.request({
      method: 'POST',
      url: `/v1/collections/${collection.id}/users`,
      key,
      json: { email: `${text.replace(/\W/g, '').toLowerCase()}@example.com`, first_name: 'Ada', last_name: 'Lovelace' },
    })
  ).json();
  const base = `/v1/collections/${collection.id}/users/${user.id}`;
  const record = (words: string) =>
    t.request({
      method: 'PUT',
      url: `${base}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav(words, words.replace(/\W/g, '-'))),
    });
  return { base, record, userId: user.id as string, collectionId };
}

const batch = async (collectionId: string, ids: string[]) =>
  (
    await t.request({ method: 'GET', url: `/v1/play-links/batch?collection_id=${collectionId}&user_ids=${ids.join(',')}`, key })
  ).json().data as { user_id: string; display_name: string; has_recording: boolean; play_link: string | null }[];

const mp3Location = async (playUrl: string) => {
  const res = await t.request({ method: 'GET', url: new URL(playUrl).pathname });
  return { status: res.statusCode, location: res.headers.location };
};

describe('a recording and its play link', () => {
  it('resolves at once, follows a re-recording and stops resolving when the recording is deleted', async () => {
    const { base, record } = await userWithRecording('Ada Lovelace');
    const first = (await record('Ada Lovelace')).json();
    const api = (await t.request({ method: 'GET', url: `${base}/play-link`, key })).json();
    expect(api).toEqual(first);

    const before = await mp3Location(first.play_url);
    expect(before.status).toBe(302);

    const second = (await record('Augusta Ada King')).json();
    expect(second.play_url).toBe(first.play_url);
    const after = await mp3Location(first.play_url);
    expect(after.status).toBe(302);
    expect(after.location).not.toBe(before.location);

    expect((await t.request({ method: 'DELETE', url: `${base}/recording`, key })).statusCode).toBe(200);
    expect((await mp3Location(first.play_url)).status).toBe(404);
    expect((await t.request({ method: 'GET', url: new URL(first.play_link).pathname })).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: `${base}/play-link`, key })).statusCode).toBe(404);
    // The old audio's URL is gone at once here (this process knows); the file itself goes later.
    expect((await t.request({ method: 'GET', url: before.location })).statusCode).toBe(404);
  }, 60_000);

  it('stops resolving when the user is deleted, and shows a new display name at once', async () => {
    const { base, record } = await userWithRecording('Grace Hopper');
    const link = (await record('Grace Hopper')).json();
    const page = (await t.request({ method: 'GET', url: new URL(link.play_link).pathname })).body;
    expect(page).toContain('Ada Lovelace');
    await t.request({ method: 'PATCH', url: base, key, json: { display_name: 'Countess of Lovelace' } });
    const renamed = (await t.request({ method: 'GET', url: new URL(link.play_link).pathname })).body;
    expect(renamed).toContain('Countess of Lovelace');

    expect((await t.request({ method: 'DELETE', url: base, key })).statusCode).toBe(200);
    expect((await mp3Location(link.play_url)).status).toBe(410);
  }, 60_000);

  it('batch answers follow re-recordings, renames and deletions at once, and never cross collections', async () => {
    const a = await userWithRecording('Alan Turing');
    const first = (await a.record('Alan Turing')).json();
    expect(await batch(a.collectionId, [a.userId])).toEqual([
      { user_id: a.userId, display_name: 'Ada Lovelace', has_recording: true, play_link: first.play_link },
    ]);
    // Cached now; another collection asking for the same id learns nothing.
    const other = await newCollection();
    expect(await batch(other, [a.userId])).toEqual([
      { user_id: a.userId, display_name: '', has_recording: false, play_link: null },
    ]);

    await t.request({ method: 'PATCH', url: a.base, key, json: { display_name: 'Alan' } });
    expect((await batch(a.collectionId, [a.userId]))[0]?.display_name).toBe('Alan');

    const rotated = (await t.request({ method: 'POST', url: `${a.base}/play-link/rotate`, key })).json();
    expect((await batch(a.collectionId, [a.userId]))[0]?.play_link).toBe(rotated.play_link);

    await t.request({ method: 'DELETE', url: `${a.base}/recording`, key });
    expect((await batch(a.collectionId, [a.userId]))[0]).toMatchObject({
      has_recording: false,
      play_link: null,
      display_name: 'Alan',
    });

    await t.request({ method: 'DELETE', url: a.base, key });
    expect((await batch(a.collectionId, [a.userId]))[0]).toEqual({
      user_id: a.userId,
      display_name: '',
      has_recording: false,
      play_link: null,
    });
  }, 60_000);
});
