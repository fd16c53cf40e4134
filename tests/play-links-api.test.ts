import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureActivePlayLink } from '../src/features/play-links/index.js';
import { newId } from '../src/lib/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { authContract } from './helpers/auth-contract.js';
import { addRecordedUser, addRecording, addUser, createCollection, spokenMp3 } from './helpers/play-link-fixtures.js';

let t: TestApp;
let key: string;
let collectionId: string;
const BASE = 'http://localhost:3000';

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = await createCollection(t, key);
});
afterAll(() => t.close());

const get = (url: string, k = key) => t.request({ method: 'GET', url, key: k });
const linkUrl = (userId: string, c = collectionId) => `/v1/collections/${c}/users/${userId}/play-link`;
const batch = (ids: string, c = collectionId, k = key) =>
  get(`/v1/play-links/batch?collection_id=${encodeURIComponent(c)}&user_ids=${encodeURIComponent(ids)}`, k);

describe('GET /v1/collections/:collection_id/users/:user_id/play-link', () => {
  it('returns exactly the seven spec fields, embed_html byte for byte', async () => {
    const recordedAt = '2026-03-04T05:06:07.089Z';
    const userId = await addUser(t, collectionId, { firstName: 'Siobhan', lastName: "O'Sullivan" });
    const token = await addRecording(t, userId, { recordedAt });
    const res = await get(linkUrl(userId));
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      ['display_name', 'duration_seconds', 'embed_html', 'play_link', 'play_url', 'recorded_at', 'status'].sort(),
    );
    expect(token).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(body).toEqual({
      play_link: `${BASE}/p/${token}`,
      play_url: `${BASE}/p/${token}.mp3`,
      // The spec's attributes byte for byte, then a title naming the person (escaped).
      embed_html: `<iframe src="${BASE}/p/${token}/embed" width="200" height="40" frameborder="0" title="How to say Siobhan O&#39;Sullivan"></iframe>`,
      display_name: "Siobhan O'Sullivan",
      duration_seconds: Math.max(1, Math.round(spokenMp3("Siobhan O'Sullivan").durationMs / 1000)),
      recorded_at: recordedAt,
      status: 'active',
    });
    expect(Number.isInteger(body.duration_seconds)).toBe(true);
  });

  it('keeps the token and URLs across re-recordings; the audio details change', async () => {
    const userId = await addUser(t, collectionId);
    const token = await addRecording(t, userId, { recordedAt: '2026-01-01T00:00:00.000Z' });
    const first = (await get(linkUrl(userId))).json();
    const again = await addRecording(t, userId, {
      text: 'a much longer recording of a name with several words',
      recordedAt: '2026-02-01T00:00:00.000Z',
    });
    expect(again).toBe(token);
    const second = (await get(linkUrl(userId))).json();
    expect(second.play_link).toBe(first.play_link);
    expect(second.embed_html).toBe(first.embed_html);
    expect(second.recorded_at).toBe('2026-02-01T00:00:00.000Z');
    expect(second.duration_seconds).toBeGreaterThan(first.duration_seconds);
  });

  it('answers 404 recording_missing for a user without a recording', async () => {
    const userId = await addUser(t, collectionId);
    const res = await get(linkUrl(userId));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toMatchObject({ code: 'recording_missing', param: 'user_id', type: 'invalid_request_error' });
  });

  it('answers 404 resource_missing for unknown users, users of other collections and unknown collections', async () => {
    const other = await createCollection(t, key, 'Other');
    const { userId: elsewhere } = await addRecordedUser(t, other);
    for (const url of [
      linkUrl(newId()),
      linkUrl('not-a-uuid'),
      linkUrl(elsewhere),
      linkUrl(elsewhere, newId()),
      linkUrl(elsewhere, 'nope'),
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('resource_missing');
    }
  });

  it('answers 404 once the collection is archived', async () => {
    const archived = await createCollection(t, key, 'Archived');
    const { userId } = await addRecordedUser(t, archived);
    expect((await get(linkUrl(userId, archived))).statusCode).toBe(200);
    await t.request({ method: 'DELETE', url: `/v1/collections/${archived}`, key });
    expect((await get(linkUrl(userId, archived))).json().error.code).toBe('resource_missing');
  });
});

describe('POST .../play-link/rotate', () => {
  it('issues a new token, retires the old one, and keeps the play count', async () => {
    const { userId, token } = await addRecordedUser(t, collectionId);
    await t.deps.db.kysely.updateTable('play_links').set({ play_count: 7 }).where('token', '=', token).execute();
    expect((await t.request({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(200);

    const res = await t.request({ method: 'POST', url: `${linkUrl(userId)}/rotate`, key });
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(Object.keys(rotated)).toHaveLength(7);
    expect(rotated.play_link).not.toBe(`${BASE}/p/${token}`);
    expect((await get(linkUrl(userId))).json()).toEqual(rotated);

    const newToken = rotated.play_link.split('/p/')[1];
    // The old token stops resolving at once (the cache held it), the new one works.
    expect((await t.request({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(404);
    const meta = await t.request({ method: 'GET', url: `/p/${newToken}/meta` });
    expect(meta.statusCode).toBe(200);
    expect(meta.json().play_count).toBe(7);
    const rows = await t.deps.db.kysely.selectFrom('play_links').selectAll().where('user_id', '=', userId).execute();
    expect(rows.map((r) => r.status).sort()).toEqual(['active', 'retired']);
  });

  it('needs a recording, and honours Idempotency-Key', async () => {
    const bare = await addUser(t, collectionId);
    const none = await t.request({ method: 'POST', url: `${linkUrl(bare)}/rotate`, key });
    expect(none.statusCode).toBe(404);
    expect(none.json().error.code).toBe('recording_missing');

    const { userId } = await addRecordedUser(t, collectionId);
    const send = () =>
      t.request({ method: 'POST', url: `${linkUrl(userId)}/rotate`, key, headers: { 'idempotency-key': `rot-${userId}` } });
    const first = await send();
    const replay = await send();
    expect(replay.json()).toEqual(first.json());
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });
});

describe('GET /v1/play-links/batch', () => {
  let recorded: { userId: string; token: string }[] = [];
  let silent = '';
  let foreign = '';
  beforeAll(async () => {
    recorded = [];
    for (const name of ['Aoife', 'Nguyễn', 'Zoë'])
      recorded.push(await addRecordedUser(t, collectionId, { firstName: name, lastName: 'X' }));
    silent = await addUser(t, collectionId, { displayName: 'Not Yet' });
    const other = await createCollection(t, key, 'Other batch');
    foreign = (await addRecordedUser(t, other, { displayName: 'Foreign Person' })).userId;
  });

  it('returns one item per id in request order with exactly the four fields', async () => {
    const [a, b, c] = recorded as [(typeof recorded)[0], (typeof recorded)[0], (typeof recorded)[0]];
    const res = await batch([c.userId, silent, a.userId, b.userId].join(','));
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(['data']);
    expect(res.json().data).toEqual([
      { user_id: c.userId, display_name: 'Zoë X', has_recording: true, play_link: `${BASE}/p/${c.token}` },
      { user_id: silent, display_name: 'Not Yet', has_recording: false, play_link: null },
      { user_id: a.userId, display_name: 'Aoife X', has_recording: true, play_link: `${BASE}/p/${a.token}` },
      { user_id: b.userId, display_name: 'Nguyễn X', has_recording: true, play_link: `${BASE}/p/${b.token}` },
    ]);
    for (const item of res.json().data)
      expect(Object.keys(item)).toEqual(['user_id', 'display_name', 'has_recording', 'play_link']);
    // The same bytes and type as every other /v1 answer: compact JSON, UTF-8 named.
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(JSON.stringify(res.json()));
  });

  it('never shows another collection’s user, and echoes unknown and malformed ids', async () => {
    const unknown = newId();
    const res = await batch(`${foreign},${unknown},not-a-uuid`);
    expect(res.json().data).toEqual([
      { user_id: foreign, display_name: '', has_recording: false, play_link: null },
      { user_id: unknown, display_name: '', has_recording: false, play_link: null },
      { user_id: 'not-a-uuid', display_name: '', has_recording: false, play_link: null },
    ]);
  });

  it('trims whitespace, skips empty entries and keeps duplicates', async () => {
    const a = recorded[0] as (typeof recorded)[0];
    const res = await batch(` ${a.userId} ,, ${a.userId},`);
    expect(res.json().data.map((i: { user_id: string }) => i.user_id)).toEqual([a.userId, a.userId]);
    expect(res.json().data[1].has_recording).toBe(true);
  });

  it('answers an empty list with no items', async () => {
    expect((await batch('')).json()).toEqual({ data: [] });
    expect((await batch(' , ,')).json()).toEqual({ data: [] });
  });

  it('accepts 100 ids and refuses 101', async () => {
    const ids = (n: number) => Array.from({ length: n }, () => newId());
    const ok = await batch(ids(100).join(','));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data).toHaveLength(100);
    const tooMany = await batch(ids(101).join(','));
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toMatchObject({ code: 'parameter_invalid', param: 'user_ids' });
    expect(tooMany.json().error.message).toContain('100');
    // Duplicates count: the response has one item per requested id.
    expect((await batch(Array(101).fill(newId()).join(','))).statusCode).toBe(400);
  });

  it('refuses over-long ids and needs both parameters', async () => {
    expect((await batch('x'.repeat(101))).json().error).toMatchObject({ code: 'parameter_invalid', param: 'user_ids' });
    expect((await batch('x'.repeat(100))).statusCode).toBe(200);
    // Too many ids is the error reported first, even when one of them is also too long.
    const both = (await batch([...Array(100).fill('a'), 'x'.repeat(101)].join(','))).json().error;
    expect(both.message).toBe('Invalid query parameter "user_ids": at most 100 ids, got 101.');
    const noIds = await get(`/v1/play-links/batch?collection_id=${collectionId}`);
    expect(noIds.json().error).toMatchObject({ code: 'parameter_missing', param: 'user_ids' });
    const noCollection = await get('/v1/play-links/batch?user_ids=a');
    expect(noCollection.json().error).toMatchObject({ code: 'parameter_missing', param: 'collection_id' });
    const extra = await get(`/v1/play-links/batch?collection_id=${collectionId}&user_ids=a&limit=3`);
    expect(extra.json().error).toMatchObject({ code: 'parameter_unknown', param: 'limit' });
  });

  it("answers 404 for unknown and other accounts' collections", async () => {
    expect((await batch('a', newId())).json().error).toMatchObject({ code: 'resource_missing', param: 'collection_id' });
    const stranger = await t.newAccount();
    const res = await batch(recorded.map((r) => r.userId).join(','), collectionId, stranger.key);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain(recorded[0]?.token);
  });
});

describe('play-link settings', () => {
  it('defaults to noindex and can opt in', async () => {
    const url = `/v1/collections/${collectionId}/play-link-settings`;
    expect((await get(url)).json()).toEqual({ allow_indexing: false });
    const res = await t.request({ method: 'PATCH', url, key, json: { allow_indexing: true } });
    expect(res.json()).toEqual({ allow_indexing: true });
    expect((await get(url)).json()).toEqual({ allow_indexing: true });
    expect((await t.request({ method: 'PATCH', url, key, json: { allow_indexing: 'yes' } })).statusCode).toBe(400);
    await t.request({ method: 'PATCH', url, key, json: { allow_indexing: false } });
  });
});

describe('functions other features call', () => {
  it('ensureActivePlayLink creates one link per user and keeps it, and the API serves that link', async () => {
    const userId = await addUser(t, collectionId);
    const token = await addRecording(t, userId);
    await t.deps.db.kysely.deleteFrom('play_links').where('user_id', '=', userId).execute();
    const at = new Date().toISOString();
    const created = await t.deps.db.kysely.transaction().execute((trx) => ensureActivePlayLink(trx, userId, at));
    expect(created).not.toBe(token);
    expect(await t.deps.db.kysely.transaction().execute((trx) => ensureActivePlayLink(trx, userId, at))).toBe(created);
    const viaApi = (await get(linkUrl(userId))).json();
    expect(viaApi.play_link).toBe(`${BASE}/p/${created}`);
    // A second active link for one user is refused by the database itself.
    await expect(
      t.deps.db.kysely
        .insertInto('play_links')
        .values({ token: 'dupdupdupdup', user_id: userId, status: 'active', created_at: at, retired_at: null })
        .execute(),
    ).rejects.toThrow();
  });

  it('creates the link on first read when a recording exists without one', async () => {
    const userId = await addUser(t, collectionId);
    await addRecording(t, userId);
    await t.deps.db.kysely.deleteFrom('play_links').where('user_id', '=', userId).execute();
    const item = (await batch(userId)).json().data[0];
    expect(item.has_recording).toBe(true);
    expect((await get(linkUrl(userId))).json().play_link).toBe(item.play_link);
    expect((await get(linkUrl(newId()))).statusCode).toBe(404);
  });
});

describe('authentication', () => {
  let userId = '';
  beforeAll(async () => {
    ({ userId } = await addRecordedUser(t, collectionId));
  });
  authContract(() => ({
    t,
    routes: [
      { method: 'GET', url: linkUrl(userId), owned: true },
      { method: 'POST', url: `${linkUrl(userId)}/rotate`, owned: true },
      { method: 'GET', url: `/v1/play-links/batch?collection_id=${collectionId}&user_ids=${userId}`, owned: true },
      { method: 'GET', url: `/v1/collections/${collectionId}/play-link-settings`, owned: true },
      { method: 'PATCH', url: `/v1/collections/${collectionId}/play-link-settings`, json: { allow_indexing: true }, owned: true },
    ],
  }));
});

describe('concurrent rotations', () => {
  it('leave exactly one active link; a loser gets 409 conflict, never a 500', async () => {
    const { userId } = await addRecordedUser(t, collectionId);
    const results = await Promise.all(
      Array.from({ length: 4 }, () => t.request({ method: 'POST', url: `${linkUrl(userId)}/rotate`, key })),
    );
    for (const res of results) expect([200, 409]).toContain(res.statusCode);
    const active = await t.deps.db.kysely
      .selectFrom('play_links')
      .select('token')
      .where('user_id', '=', userId)
      .where('status', '=', 'active')
      .execute();
    expect(active).toHaveLength(1);
    expect((await get(linkUrl(userId))).json().play_link).toBe(`${BASE}/p/${active[0]?.token}`);
  });
});
