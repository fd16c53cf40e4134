import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { authContract } from './helpers/auth-contract.js';
import { AFTER_AUDIO_DELETE_DELAY_MS, runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;
let collectionId: string;

const CUSTOM_FIELDS = [
  { key: 'student_id', label: 'Student ID', type: 'text', required: true },
  { key: 'house', label: 'House', type: 'select', options: ['Red', 'Blue'] },
  { key: 'year', label: 'Year', type: 'number' },
  { key: 'alumni', label: 'Alumni', type: 'boolean' },
  { key: 'site', label: 'Website', type: 'url' },
  { key: 'work_email', label: 'Work e-mail', type: 'email' },
];

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = (
    await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class', custom_fields: CUSTOM_FIELDS } })
  ).json().id;
});
afterAll(() => t.close());

let n = 0;
const person = (extra: Record<string, unknown> = {}) => {
  n++;
  return {
    email: `p${n}@example.com`,
    first_name: 'Ada',
    last_name: `Lovelace${n}`,
    custom_fields: { student_id: `s${n}` },
    ...extra,
  };
};
const usersUrl = (collection = collectionId) => `/v1/collections/${collection}/users`;
const create = (json: unknown, collection = collectionId, k = key) =>
  t.request({ method: 'POST', url: usersUrl(collection), key: k, json });
const getCollection = async () => (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}`, key })).json();

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST …/users', () => {
  it('creates a user with exactly the documented fields', async () => {
    const res = await create(person({ email: 'Grace.Hopper@Example.com', first_name: 'Grace', last_name: 'Hopper' }));
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(Object.keys(user).sort()).toEqual(
      [
        'id',
        'collection_id',
        'email',
        'first_name',
        'last_name',
        'display_name',
        'preferred_name',
        'pronouns',
        'external_id',
        'phonetic_spelling',
        'name_language',
        'given_name_language',
        'family_name_language',
        'language',
        'pronunciation',
        'custom_fields',
        'has_recording',
        'recording_status',
        'review_note',
        'listened_at',
        'record_url',
        'invitation',
        'field_sources',
        'updated_by',
        'created_at',
        'updated_at',
      ].sort(),
    );
    // Every value given at creation is the organiser's.
    expect(user.updated_by).toBe('organiser');
    expect(Object.keys(user.field_sources).sort()).toEqual([
      'custom_fields.student_id',
      'display_name',
      'email',
      'first_name',
      'last_name',
    ]);
    expect(user.field_sources.first_name).toEqual({ source: 'organiser', at: user.created_at });
    expect(user.invitation).toEqual({ status: null, error: null, invited_at: null, updated_at: null, unsubscribed_at: null });
    expect(user).toMatchObject({
      recording_status: 'none',
      review_note: null,
      collection_id: collectionId,
      email: 'Grace.Hopper@Example.com',
      display_name: 'Grace Hopper',
      preferred_name: null,
      pronouns: null,
      external_id: null,
      phonetic_spelling: null,
      has_recording: false,
    });
    expect(user.record_url).toMatch(/^http:\/\/localhost:3000\/r\/[A-Za-z0-9_-]{32}$/);
    expect(user.created_at).toMatch(ISO);
    expect(user.updated_at).toBe(user.created_at);
    expect((await getCollection()).member_count).toBeGreaterThanOrEqual(1);
  });

  it.each([
    ['first_name', 'f', 100],
    ['last_name', 'l', 100],
    ['display_name', 'd', 200],
    ['preferred_name', 'p', 100],
    ['pronouns', 'x', 40],
    ['external_id', 'x', 255],
    ['phonetic_spelling', 'p', 100],
  ])('accepts %s at its limit and refuses one more character', async (field, ch, limit) => {
    expect((await create(person({ [field]: ch.repeat(limit) }))).statusCode).toBe(201);
    const res = await create(person({ [field]: ch.repeat(limit + 1) }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: field });
    expect(res.json().error.message).toContain(String(limit));
  });

  it('validates e-mail addresses: 254 characters accepted, 255 refused', async () => {
    const address = (domainTail: number) => `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(domainTail)}.com`;
    expect(address(57)).toHaveLength(254);
    expect((await create(person({ email: address(57) }))).statusCode).toBe(201);
    const long = await create(person({ email: address(58) }));
    expect(long.statusCode).toBe(400);
    expect(long.json().error).toMatchObject({ code: 'parameter_invalid', param: 'email' });
    expect((await create(person({ email: 'not-an-email' }))).json().error).toMatchObject({ param: 'email' });
  });

  it('requires email and first_name, and refuses a blank first name', async () => {
    for (const field of ['email', 'first_name']) {
      const body = person();
      delete (body as Record<string, unknown>)[field];
      expect((await create(body)).json().error).toMatchObject({ code: 'parameter_missing', param: field });
    }
    expect((await create(person({ first_name: '   ' }))).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'first_name',
    });
    expect((await create(person({ nickname: 'x' }))).json().error).toMatchObject({
      code: 'parameter_unknown',
      param: 'nickname',
    });
  });

  it('refuses a duplicate e-mail (case-insensitive) and a duplicate external_id with 409', async () => {
    expect((await create(person({ email: 'dup@example.com', external_id: 'ext-1' }))).statusCode).toBe(201);
    const email = await create(person({ email: 'DUP@example.com' }));
    expect(email.statusCode).toBe(409);
    expect(email.json().error).toMatchObject({ code: 'email_taken', param: 'email' });
    const external = await create(person({ external_id: 'ext-1' }));
    expect(external.statusCode).toBe(409);
    expect(external.json().error).toMatchObject({ code: 'external_id_taken', param: 'external_id' });
    // Uniqueness is per collection.
    const other = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Other' } })).json().id;
    expect(
      (await create({ email: 'dup@example.com', first_name: 'A', last_name: 'B', external_id: 'ext-1' }, other)).statusCode,
    ).toBe(201);
  });

  it.each([
    [{ student_id: 's', house: 'Green' }, 'custom_fields.house', 'parameter_invalid'],
    [{ student_id: 's', year: 'twenty' }, 'custom_fields.year', 'parameter_invalid'],
    [{ student_id: 's', alumni: 'yes' }, 'custom_fields.alumni', 'parameter_invalid'],
    [{ student_id: 's', site: 'javascript:alert(1)' }, 'custom_fields.site', 'parameter_invalid'],
    [{ student_id: 's', work_email: 'nope' }, 'custom_fields.work_email', 'parameter_invalid'],
    [{ student_id: 's', colour: 'red' }, 'custom_fields.colour', 'parameter_unknown'],
    [{ house: 'Red' }, 'custom_fields.student_id', 'parameter_missing'],
    [{ student_id: null }, 'custom_fields.student_id', 'parameter_missing'],
  ])('validates custom fields against the collection: %j', async (custom_fields, param, code) => {
    const res = await create(person({ custom_fields }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code, param });
  });

  it('stores valid custom field values of every type', async () => {
    const custom_fields = {
      student_id: 'S-1',
      house: 'Blue',
      year: 2027,
      alumni: false,
      site: 'https://ada.example',
      work_email: 'ada@work.example',
    };
    const res = await create(person({ custom_fields }));
    expect(res.statusCode).toBe(201);
    expect(res.json().custom_fields).toEqual(custom_fields);
  });

  it('404s for unknown, archived and foreign collections', async () => {
    expect((await create(person(), '00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    const archived = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'gone' } })).json().id;
    await t.request({ method: 'DELETE', url: `/v1/collections/${archived}`, key });
    expect((await create(person(), archived)).statusCode).toBe(404);
    const other = await t.newAccount();
    expect((await create(person(), collectionId, other.key)).statusCode).toBe(404);
  });
});

describe('POST …/users/batch', () => {
  const batch = (users: unknown[], collection = collectionId) =>
    t.request({ method: 'POST', url: `${usersUrl(collection)}/batch`, key, json: { users } });
  const csv = (text: string, collection = collectionId) =>
    t.request({
      method: 'POST',
      url: `${usersUrl(collection)}/batch`,
      key,
      headers: { 'content-type': 'text/csv' },
      payload: text,
    });

  it('creates 1,000 users at once and refuses 1,001', async () => {
    const fresh = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Big' } })).json().id;
    const users = Array.from({ length: 1001 }, (_, i) => ({ email: `big${i}@example.com`, first_name: 'B', last_name: `${i}` }));
    const tooMany = await batch(users, fresh);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error.param).toBe('users');
    const res = await batch(users.slice(0, 1000), fresh);
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toHaveLength(1000);
    const coll = (await t.request({ method: 'GET', url: `/v1/collections/${fresh}`, key })).json();
    expect(coll.member_count).toBe(1000);
  });

  it('is all-or-nothing and reports every bad row with index, field and message', async () => {
    const before = (await getCollection()).member_count;
    const res = await batch([
      person({ email: 'ok1@example.com' }),
      person({ email: 'broken' }),
      person({ first_name: '' }),
      person({ email: 'ok1@EXAMPLE.com' }),
      person({ custom_fields: {} }),
      person({ email: 'dup@example.com' }),
    ]);
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('batch_invalid');
    expect(error.errors).toEqual([
      expect.objectContaining({ index: 1, field: 'email', code: 'parameter_invalid' }),
      expect.objectContaining({ index: 2, field: 'first_name', code: 'parameter_invalid' }),
      expect.objectContaining({ index: 4, field: 'custom_fields.student_id', code: 'parameter_missing' }),
    ]);
    for (const item of error.errors) expect(item.message.length).toBeGreaterThan(5);
    expect((await getCollection()).member_count).toBe(before);

    // Once the shapes are fine, duplicates (within the batch and against the collection) are reported.
    const dup = await batch([
      person({ email: 'ok1@example.com' }),
      person({ email: 'OK1@example.com' }),
      person({ email: 'dup@example.com' }),
    ]);
    expect(dup.json().error.errors).toEqual([
      expect.objectContaining({ index: 1, field: 'email', code: 'email_taken' }),
      expect.objectContaining({ index: 2, field: 'email', code: 'email_taken' }),
    ]);
    expect((await getCollection()).member_count).toBe(before);
  });

  it('imports CSV with a header row, typed custom fields and empty cells', async () => {
    const text = [
      'email,first_name,last_name,display_name,external_id,phonetic_spelling,student_id,house,year,alumni',
      'csv1@example.com,Siobhán,Ní Bhriain,,ext-csv-1,shiv-AWN,S1,Red,2027,true',
      '"csv2@example.com","Jürgen","Habermas, Jr.",Dr J,,,S2,,,no',
    ].join('\r\n');
    const res = await csv(`\uFEFF${text}\r\n`);
    expect(res.statusCode, res.body).toBe(201);
    const [a, b] = res.json().data;
    expect(a).toMatchObject({
      email: 'csv1@example.com',
      display_name: 'Siobhán Ní Bhriain',
      external_id: 'ext-csv-1',
      phonetic_spelling: 'shiv-AWN',
      custom_fields: { student_id: 'S1', house: 'Red', year: 2027, alumni: true },
    });
    expect(b).toMatchObject({
      last_name: 'Habermas, Jr.',
      display_name: 'Dr J',
      external_id: null,
      custom_fields: { student_id: 'S2', alumni: false },
    });
  });

  it('reports CSV errors per data row (index 0 = first row after the header)', async () => {
    const res = await csv('email,first_name,last_name,student_id,year\ncsv-bad1@example.com,A,B,S,soon\nnot-an-email,A,B,S,1\n');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.errors).toEqual([
      expect.objectContaining({ index: 0, field: 'custom_fields.year' }),
      expect.objectContaining({ index: 1, field: 'email' }),
    ]);
  });

  it.each([
    ['an unknown column', 'email,first_name,last_name,shoe_size\na@x.com,A,B,42\n', 'invalid_csv'],
    ['a missing required column', 'email,last_name\na@x.com,B\n', 'invalid_csv'],
    ['a ragged row', 'email,first_name,last_name\na@x.com,A\n', 'invalid_csv'],
    ['an unclosed quote', 'email,first_name,last_name\n"a@x.com,A,B\n', 'invalid_csv'],
    ['a header only', 'email,first_name,last_name\n', 'parameter_invalid'],
  ])('refuses CSV with %s', async (_name, text, code) => {
    const res = await csv(text);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe(code);
  });

  it('refuses more than 1,000 CSV rows', async () => {
    const rows = Array.from({ length: 1001 }, (_, i) => `many${i}@example.com,A,B,S`);
    const res = await csv(`email,first_name,last_name,student_id\n${rows.join('\n')}\n`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('users');
  });
});

describe('GET, PATCH, DELETE …/users/{id}', () => {
  it('lists with cursor pagination and filters', async () => {
    const coll = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'List' } })).json().id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (await create({ email: `l${i}@example.com`, first_name: 'L', last_name: `${i}`, external_id: `e${i}` }, coll)).json().id,
      );
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; next_cursor: string | null; has_more: boolean } = (
        await t.request({ method: 'GET', url: `${usersUrl(coll)}?limit=2${cursor ? `&cursor=${cursor}` : ''}`, key })
      ).json();
      seen.push(...page.data.map((u: { id: string }) => u.id));
      cursor = page.next_cursor;
      expect(page.has_more).toBe(cursor !== null);
    } while (cursor);
    expect(seen.sort()).toEqual([...ids].sort());

    const byEmail = (await t.request({ method: 'GET', url: `${usersUrl(coll)}?email=L3@EXAMPLE.COM`, key })).json();
    expect(byEmail.data.map((u: { id: string }) => u.id)).toEqual([ids[3]]);
    const byExternal = (await t.request({ method: 'GET', url: `${usersUrl(coll)}?external_id=e1`, key })).json();
    expect(byExternal.data.map((u: { id: string }) => u.id)).toEqual([ids[1]]);

    await t.request({
      method: 'PUT',
      url: `${usersUrl(coll)}/${ids[2]}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    const withRec = (await t.request({ method: 'GET', url: `${usersUrl(coll)}?has_recording=true`, key })).json();
    expect(withRec.data.map((u: { id: string }) => u.id)).toEqual([ids[2]]);
    expect(withRec.data[0].has_recording).toBe(true);
    const without = (await t.request({ method: 'GET', url: `${usersUrl(coll)}?has_recording=false`, key })).json();
    expect(without.data).toHaveLength(4);
    expect((await t.request({ method: 'GET', url: `${usersUrl(coll)}?limit=101`, key })).statusCode).toBe(400);
    expect((await t.request({ method: 'GET', url: `${usersUrl(coll)}?cursor=garbage!`, key })).json().error.code).toBe(
      'invalid_cursor',
    );
  });

  it('patches fields, keeps display_name following the names while it is the default, and merges custom fields', async () => {
    const user = (await create(person({ custom_fields: { student_id: 'S', house: 'Red' } }))).json();
    const url = `${usersUrl()}/${user.id}`;
    const renamed = await t.request({ method: 'PATCH', url, key, json: { first_name: 'Augusta' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().display_name).toBe(`Augusta ${user.last_name}`);
    expect(renamed.json().updated_at > user.updated_at).toBe(true);
    const custom = await t.request({
      method: 'PATCH',
      url,
      key,
      json: { display_name: 'Ada', custom_fields: { house: null, year: 1815 } },
    });
    expect(custom.json()).toMatchObject({ display_name: 'Ada', custom_fields: { student_id: 'S', year: 1815 } });
    const reset = await t.request({ method: 'PATCH', url, key, json: { display_name: null, phonetic_spelling: 'AY-duh' } });
    expect(reset.json()).toMatchObject({ display_name: `Augusta ${user.last_name}`, phonetic_spelling: 'AY-duh' });
    expect(
      (await t.request({ method: 'PATCH', url, key, json: { custom_fields: { student_id: null } } })).json().error,
    ).toMatchObject({
      code: 'parameter_missing',
      param: 'custom_fields.student_id',
    });
    expect((await t.request({ method: 'PATCH', url, key, json: { email: 'dup@example.com' } })).statusCode).toBe(409);
    expect((await t.request({ method: 'PATCH', url, key, json: { first_name: ' ' } })).statusCode).toBe(400);
    expect((await t.request({ method: 'PATCH', url, key, json: { record_url: 'x' } })).json().error.code).toBe(
      'parameter_unknown',
    );
  });

  it('rotates the record link: the new record_url works, the old one does not', async () => {
    const user = (await create(person())).json();
    const oldPath = new URL(user.record_url).pathname;
    expect((await t.app.inject({ method: 'GET', url: oldPath })).statusCode).toBe(200);
    const res = await t.request({ method: 'POST', url: `${usersUrl()}/${user.id}/record-link`, key });
    expect(res.statusCode).toBe(200);
    expect(res.json().record_url).not.toBe(user.record_url);
    expect((await t.app.inject({ method: 'GET', url: oldPath })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: new URL(res.json().record_url).pathname })).statusCode).toBe(200);
    const upload = await t.app.inject({
      method: 'POST',
      url: `${oldPath}/recording`,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(upload.statusCode).toBe(404);
  });

  it('DELETE removes the user, the recording and every audio file, and announces it', async () => {
    const user = (await create(person())).json();
    const put = await t.request({
      method: 'PUT',
      url: `${usersUrl()}/${user.id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(put.statusCode).toBe(200);
    // A leftover from an interrupted upload must go too.
    await t.deps.blobs.put(`recordings/${user.id}/${'f'.repeat(64)}.mp3`, Buffer.from('x'), 'audio/mpeg');
    const before = await getCollection();
    const res = await t.request({ method: 'DELETE', url: `${usersUrl()}/${user.id}`, key });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true, id: user.id });
    const after = await getCollection();
    expect(after.member_count).toBe(before.member_count - 1);
    expect(after.recorded_count).toBe(before.recorded_count - 1);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toHaveLength(2);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toEqual([]);
    for (const table of ['recordings', 'play_links'] as const) {
      expect(await t.deps.db.kysely.selectFrom(table).selectAll().where('user_id', '=', user.id).execute()).toEqual([]);
    }
    const events = await t.deps.db.kysely.selectFrom('events').selectAll().where('type', '=', 'recording.deleted').execute();
    const mine = events.map((e) => JSON.parse(e.data)).filter((d) => d.user_id === user.id);
    expect(mine).toEqual([
      {
        collection_id: collectionId,
        user_id: user.id,
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        play_link: put.json().play_link,
        recorded_at: put.json().recorded_at,
      },
    ]);
    expect((await t.request({ method: 'GET', url: `${usersUrl()}/${user.id}`, key })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `${usersUrl()}/${user.id}`, key })).statusCode).toBe(404);
  });

  it('deleting a user without a recording records user.deleted only (no recording.deleted)', async () => {
    const user = (await create(person())).json();
    const types = async () => (await t.deps.db.kysely.selectFrom('events').select('type').execute()).map((e) => e.type);
    const before = await types();
    expect((await t.request({ method: 'DELETE', url: `${usersUrl()}/${user.id}`, key })).statusCode).toBe(200);
    const after = await types();
    expect(after.length).toBe(before.length + 1);
    expect(after.filter((type) => type === 'user.deleted').length).toBe(
      before.filter((type) => type === 'user.deleted').length + 1,
    );
  });

  it('keeps member_count exact under concurrent creates and deletes', async () => {
    const coll = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Race' } })).json().id;
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create({ email: `race${i}@example.com`, first_name: 'R', last_name: `${i}` }, coll)),
    );
    expect(created.every((r) => r.statusCode === 201)).toBe(true);
    // The same e-mail raced: exactly one wins.
    const dup = await Promise.all(
      Array.from({ length: 5 }, () => create({ email: 'same@example.com', first_name: 'S', last_name: 'S' }, coll)),
    );
    expect(dup.filter((r) => r.statusCode === 201)).toHaveLength(1);
    expect(dup.filter((r) => r.statusCode === 409)).toHaveLength(4);
    const ids = created.map((r) => r.json().id as string);
    const deletes = await Promise.all(
      [...ids.slice(0, 10), ...ids.slice(0, 10)].map((id) =>
        t.request({ method: 'DELETE', url: `${usersUrl(coll)}/${id}`, key }),
      ),
    );
    expect(deletes.filter((r) => r.statusCode === 200)).toHaveLength(10);
    expect(deletes.filter((r) => r.statusCode === 404)).toHaveLength(10);
    const coll2 = (await t.request({ method: 'GET', url: `/v1/collections/${coll}`, key })).json();
    expect(coll2.member_count).toBe(11);
    const listed = (await t.request({ method: 'GET', url: `${usersUrl(coll)}?limit=100`, key })).json();
    expect(listed.data).toHaveLength(11);
  });
});

describe('authentication', () => {
  let userId = '';
  beforeAll(async () => {
    userId = (await create(person())).json().id;
  });
  authContract(() => ({
    t,
    routes: [
      { method: 'POST', url: usersUrl(), json: person(), owned: true },
      { method: 'POST', url: `${usersUrl()}/batch`, json: { users: [person()] }, owned: true },
      { method: 'GET', url: usersUrl(), owned: true },
      { method: 'GET', url: `${usersUrl()}/${userId}`, owned: true },
      { method: 'PATCH', url: `${usersUrl()}/${userId}`, json: { first_name: 'X' }, owned: true },
      { method: 'DELETE', url: `${usersUrl()}/${userId}`, owned: true },
      { method: 'POST', url: `${usersUrl()}/${userId}/record-link`, owned: true },
    ],
  }));
});
