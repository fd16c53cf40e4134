/**
 * People whose names do not fit first + last: one-name people (no last name), family-name-first
 * display names, the name they go by and their pronouns, through the API, CSV, the public pages
 * and the `recording.completed` payload.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Names' } })).json().id;
});
afterAll(() => t.close());

const usersUrl = `/v1/collections/${'{id}'}/users`;
const url = (suffix = '') => `${usersUrl.replace('{id}', collectionId)}${suffix}`;
const create = (json: unknown) => t.request({ method: 'POST', url: url(), key, json });
const patch = (id: string, json: unknown) => t.request({ method: 'PATCH', url: url(`/${id}`), key, json });
let n = 0;
const email = () => `names${++n}@example.com`;

async function record(userId: string) {
  const res = await t.request({
    method: 'PUT',
    url: url(`/${userId}/recording`),
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<Record<string, unknown>>();
}

describe('one-name people', () => {
  it.each([
    ['absent', {}],
    ['null', { last_name: null }],
    ['empty', { last_name: '' }],
    ['blank', { last_name: '   ' }],
  ])('last_name %s: stored as "", display_name is the first name alone', async (_case, extra) => {
    const res = await create({ email: email(), first_name: 'Sukarno', ...extra });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ first_name: 'Sukarno', last_name: '', display_name: 'Sukarno' });
    const fetched = await t.request({ method: 'GET', url: url(`/${res.json().id}`), key });
    expect(fetched.json()).toMatchObject({ last_name: '', display_name: 'Sukarno' });
  });

  it('display_name follows adding and removing a last name while it is the default; an explicit one wins', async () => {
    const user = (await create({ email: email(), first_name: 'Teller' })).json();
    expect((await patch(user.id, { last_name: 'Smith' })).json()).toMatchObject({
      last_name: 'Smith',
      display_name: 'Teller Smith',
    });
    expect((await patch(user.id, { last_name: null })).json()).toMatchObject({ last_name: '', display_name: 'Teller' });
    expect((await patch(user.id, { last_name: '' })).json()).toMatchObject({ last_name: '', display_name: 'Teller' });
    // Family name first, as written in Hungarian or Japanese: the default in that order follows the names in it.
    const family = await create({ email: email(), first_name: 'Haruki', last_name: 'Murakami', display_name: 'Murakami Haruki' });
    expect(family.json().display_name).toBe('Murakami Haruki');
    expect((await patch(family.json().id, { first_name: 'Ryū' })).json().display_name).toBe('Murakami Ryū');
    // A display name that is not made of the names wins.
    const named = await create({ email: email(), first_name: 'Haruki', last_name: 'Murakami', display_name: 'Murakami-sensei' });
    expect((await patch(named.json().id, { first_name: 'Ryū' })).json().display_name).toBe('Murakami-sensei');
    expect((await patch(named.json().id, { display_name: null })).json().display_name).toBe('Ryū Murakami');
  });

  it('still refuses a missing or blank first name', async () => {
    expect((await create({ email: email() })).json().error).toMatchObject({ code: 'parameter_missing', param: 'first_name' });
    expect((await create({ email: email(), first_name: ' ' })).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'first_name',
    });
  });

  it('batch (JSON and CSV without a last_name column) creates one-name people', async () => {
    const json = await t.request({
      method: 'POST',
      url: url('/batch'),
      key,
      json: {
        users: [
          { email: email(), first_name: 'Pelé' },
          { email: email(), first_name: 'Björk', last_name: null },
        ],
      },
    });
    expect(json.statusCode, json.body).toBe(201);
    expect(json.json().data.map((u: { display_name: string }) => u.display_name)).toEqual(['Pelé', 'Björk']);
    const csv = await t.request({
      method: 'POST',
      url: url('/batch'),
      key,
      headers: { 'content-type': 'text/csv' },
      payload: `E-mail,First Name,Pronouns\n${email()},Cher,she/her\n`,
    });
    expect(csv.statusCode, csv.body).toBe(201);
    expect(csv.json().data[0]).toMatchObject({ first_name: 'Cher', last_name: '', display_name: 'Cher', pronouns: 'she/her' });
  });
});

describe('preferred_name and pronouns', () => {
  it('are set on create, changed and cleared by PATCH, and checked at their limits', async () => {
    const res = await create({
      email: email(),
      first_name: 'Robert',
      last_name: 'Tables',
      preferred_name: ' Bobby ',
      pronouns: 'he/him',
    });
    expect(res.json()).toMatchObject({ preferred_name: 'Bobby', pronouns: 'he/him', display_name: 'Robert Tables' });
    const id = res.json().id;
    expect((await patch(id, { preferred_name: 'Bob', pronouns: 'they/them' })).json()).toMatchObject({
      preferred_name: 'Bob',
      pronouns: 'they/them',
    });
    expect((await patch(id, { preferred_name: '', pronouns: null })).json()).toMatchObject({
      preferred_name: null,
      pronouns: null,
    });
    expect((await patch(id, { pronouns: 'x'.repeat(41) })).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'pronouns',
    });
    expect((await patch(id, { preferred_name: 'p'.repeat(101) })).json().error).toMatchObject({ param: 'preferred_name' });
    expect((await patch(id, { preferred_name: 'Bo\u202eb' })).json().error).toMatchObject({ param: 'preferred_name' });
  });
});

describe('pages and payloads', () => {
  it('the player page and /meta show the preferred name and pronouns; the play-link object keeps its 7 fields', async () => {
    const user = (await create({ email: email(), first_name: 'Oluwaseun', preferred_name: 'Seun', pronouns: 'she/her' })).json();
    const link = await record(user.id);
    expect(Object.keys(link).sort()).toEqual(
      ['display_name', 'duration_seconds', 'embed_html', 'play_link', 'play_url', 'recorded_at', 'status'].sort(),
    );
    expect(link.display_name).toBe('Oluwaseun');
    const path = new URL(link.play_link as string).pathname;
    const page = (await t.request({ method: 'GET', url: path })).body;
    expect(page).toContain('<h1 id="name" dir="auto">Oluwaseun</h1>');
    expect(page).toContain('Goes by <strong><bdi>Seun</bdi></strong>');
    expect(page).toContain('Pronouns: <bdi>she/her</bdi>');
    expect(page).toContain('<title>How to say Oluwaseun</title>');
    const meta = (await t.request({ method: 'GET', url: `${path}/meta` })).json();
    expect(meta).toMatchObject({ display_name: 'Oluwaseun', preferred_name: 'Seun', pronouns: 'she/her' });

    // A change shows at once (the cached link is dropped), and cleared values leave the page.
    await patch(user.id, { preferred_name: null, pronouns: 'they/them' });
    const changed = (await t.request({ method: 'GET', url: path })).body;
    expect(changed).not.toContain('Goes by');
    expect(changed).toContain('Pronouns: <bdi>they/them</bdi>');
    expect((await t.request({ method: 'GET', url: `${path}/meta` })).json()).toMatchObject({
      preferred_name: null,
      pronouns: 'they/them',
    });
  });

  it('without them the player page has no details line, and /meta says null', async () => {
    const user = (await create({ email: email(), first_name: 'Ana', last_name: 'Diaz' })).json();
    const path = new URL((await record(user.id)).play_link as string).pathname;
    expect((await t.request({ method: 'GET', url: path })).body).not.toContain('person-details');
    expect((await t.request({ method: 'GET', url: `${path}/meta` })).json()).toMatchObject({
      preferred_name: null,
      pronouns: null,
    });
  });

  it('embed and recorder pages read well for a one-name person', async () => {
    const user = (await create({ email: email(), first_name: 'Zendaya' })).json();
    const recorder = (await t.request({ method: 'GET', url: new URL(user.record_url).pathname })).body;
    expect(recorder).toContain('<h1 class="name" dir="auto">Zendaya</h1>');
    expect(recorder).toContain('<title>Record your name: Zendaya</title>');
    const path = new URL((await record(user.id)).play_link as string).pathname;
    const embed = (await t.request({ method: 'GET', url: `${path}/embed` })).body;
    expect(embed).toContain('aria-label="Play pronunciation of Zendaya"');
    expect(embed).not.toMatch(/Zendaya\s+"/);
  });

  it('recording.completed keeps data.last_name a string: "" for a one-name person', async () => {
    const user = (await create({ email: email(), first_name: 'Madonna' })).json();
    await record(user.id);
    const events = await t.deps.db.kysely.selectFrom('events').selectAll().where('type', '=', 'recording.completed').execute();
    const data = events.map((e) => JSON.parse(e.data)).find((d) => d.user_id === user.id);
    expect(data).toMatchObject({ first_name: 'Madonna', last_name: '' });
    expect(typeof data.last_name).toBe('string');
  });
});
