/**
 * Subject-access export of one person (`GET /v1/collections/{id}/users/{user_id}/export`, and the
 * dashboard's download): a ZIP with exactly their data and their recording, nothing of anyone else.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { get, signIn } from './helpers/dashboard.js';
import { readZip } from './helpers/zip.js';

let t: TestApp;
let key: string;
let collectionId: string;
const OWNER = 'export-owner@example.com';

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount(OWNER));
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Export' } })).json<{
    id: string;
  }>().id;
});
afterAll(() => t.close());

const addPerson = async (email: string, first: string) =>
  (
    await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users`,
      key,
      json: { email, first_name: first, pronouns: 'she/her' },
    })
  ).json<{
    id: string;
  }>().id;

const exportOf = (userId: string, k = key) =>
  t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}/export`, key: k });

describe('one person’s export', () => {
  it('holds person.json with everything about them and their recording, and nothing of anyone else', async () => {
    const userId = await addPerson('aoife@example.com', 'Aoife');
    await addPerson('someone.else@example.com', 'Other');
    const upload = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collectionId}/users/${userId}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(upload.statusCode).toBe(200);

    const res = await exportOf(userId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.headers['content-disposition']).toContain('attachment');
    expect(res.headers['cache-control']).toBe('no-store');
    const entries = await readZip(res.rawPayload);
    expect(entries.map((e) => e.name)).toEqual(['person.json', 'recording.mp3']);
    const document = JSON.parse(entries[0]!.data.toString('utf8'));
    expect(document.person).toMatchObject({ id: userId, email: 'aoife@example.com', first_name: 'Aoife', pronouns: 'she/her' });
    expect(document.recording).toMatchObject({ file: 'recording.mp3', mime_type: 'audio/mpeg' });
    expect(document.play_links).toHaveLength(1);
    expect(document.events.map((e: { type: string }) => e.type)).toContain('recording.completed');
    expect(entries[0]!.data.toString()).not.toContain('someone.else@example.com');

    const [stored] = await t.deps.blobs.list(`recordings/${userId}/`);
    const audio = (await t.deps.blobs.get(stored!))!;
    const hash = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(hash(entries[1]!.data)).toBe(hash(audio));
  });

  it('has only person.json for someone without a recording', async () => {
    const userId = await addPerson('no-voice@example.com', 'Quiet');
    const entries = await readZip((await exportOf(userId)).rawPayload);
    expect(entries.map((e) => e.name)).toEqual(['person.json']);
    expect(JSON.parse(entries[0]!.data.toString()).recording).toBeNull();
  });

  it("is 404 for another organisation's person and unknown ids", async () => {
    const userId = await addPerson('private@example.com', 'Private');
    const { key: strangerKey } = await t.newAccount();
    expect((await exportOf(userId, strangerKey)).statusCode).toBe(404);
    expect((await exportOf('00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
  });

  it('downloads the same ZIP from the person’s dashboard page', async () => {
    const userId = await addPerson('dash@example.com', 'Dash');
    const browser = await signIn(t, OWNER, '203.0.113.61');
    const page = await get(t, browser, `/dashboard/collections/${collectionId}/people/${userId}`);
    expect(page.body).toContain(`/people/${userId}/export`);
    const res = await get(t, browser, `/dashboard/collections/${collectionId}/people/${userId}/export`);
    expect(res.statusCode).toBe(200);
    const entries = await readZip(res.rawPayload);
    expect(JSON.parse(entries[0]!.data.toString()).person.email).toBe('dash@example.com');
  });
});
