/**
 * A person on their record page can download their own recording and delete it: the deletion
 * reaches every copy (the audio file, the play link's audio) and fires `recording.deleted`;
 * another site cannot submit the deletion for them.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { AFTER_AUDIO_DELETE_DELAY_MS, runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Own recording' } })).json<{
    id: string;
  }>().id;
});
afterAll(() => t.close());

async function recordedPerson() {
  const user = (
    await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users`,
      key,
      json: { email: `p${Date.now()}@example.com`, first_name: 'Róisín' },
    })
  ).json<{ id: string; record_url: string }>();
  const upload = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${user.id}/recording`,
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(upload.statusCode).toBe(200);
  return {
    userId: user.id,
    recordPath: new URL(user.record_url).pathname,
    playLink: upload.json<{ play_link: string }>().play_link,
  };
}

describe('the person’s own recording on the record page', () => {
  it('shows it, and downloads exactly the stored audio', async () => {
    const person = await recordedPerson();
    const page = await t.app.inject({ method: 'GET', url: person.recordPath });
    expect(page.body).toContain('Your recording');
    expect(page.body).toContain(`${person.recordPath}/recording.mp3`);
    const download = await t.app.inject({ method: 'GET', url: `${person.recordPath}/recording.mp3` });
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('audio/mpeg');
    expect(download.headers['content-disposition']).toContain('attachment');
    const [stored] = await t.deps.blobs.list(`recordings/${person.userId}/`);
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(hash(download.rawPayload)).toBe(hash((await t.deps.blobs.get(stored!))!));
  });

  it('deletes it everywhere from a same-origin form, and fires recording.deleted', async () => {
    const person = await recordedPerson();
    const token = new URL(person.playLink).pathname.split('/')[2];
    const res = await t.app.inject({
      method: 'POST',
      url: `${person.recordPath}/delete-recording`,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(res.statusCode).toBe(303);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    expect(await t.deps.blobs.list(`recordings/${person.userId}/`)).toEqual([]);
    expect((await t.app.inject({ method: 'GET', url: `/p/${token}.mp3` })).statusCode).toBe(404);
    const user = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${person.userId}`, key })).json();
    expect(user.recording_status).toBe('none');
    const events = await t.deps.db.kysely
      .selectFrom('events')
      .select('type')
      .where('data', 'like', `%${person.userId}%`)
      .execute();
    expect(events.map((e) => e.type)).toContain('recording.deleted');
    expect((await t.app.inject({ method: 'GET', url: person.recordPath })).body).not.toContain('Your recording');
  });

  it('refuses a deletion sent from another site, or with no sign of where it came from', async () => {
    const person = await recordedPerson();
    for (const headers of [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, {}]) {
      const res = await t.app.inject({ method: 'POST', url: `${person.recordPath}/delete-recording`, headers });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect(await t.deps.blobs.list(`recordings/${person.userId}/`)).toHaveLength(1);
    const sameOrigin = await t.app.inject({
      method: 'POST',
      url: `${person.recordPath}/delete-recording`,
      headers: { origin: 'http://localhost:3000' },
    });
    expect(sameOrigin.statusCode).toBe(303);
  });
});
