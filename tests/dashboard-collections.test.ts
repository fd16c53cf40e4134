/**
 * The dashboard's collection pages through the real app and database: collections (list with
 * progress, create with custom fields, edit, archive), one collection's people table (search,
 * filter, order, pages of 100), adding a person, a person's page (audio, links, deletions) and
 * the ceremony reader. Another account's collections and people are 404 everywhere.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';

type Session = Browserish & { csrf: string };

let t: TestApp;
let alice: Session;
let mallory: Session;
let aliceKey: string;
const ALICE = 'organiser@example.com';

beforeAll(async () => {
  t = await createTestApp();
  alice = await signIn(t, ALICE, '203.0.113.21');
  mallory = await signIn(t, 'mallory@example.com', '203.0.113.22');
  ({ key: aliceKey } = await t.newAccount(ALICE));
});
afterAll(() => t.close());

/** Creates a collection through the form; returns its id. */
async function createByForm(who: Session, fields: Record<string, string>): Promise<string> {
  const res = await post(t, who, '/dashboard/collections', { csrf: who.csrf, ...fields });
  expect(res.statusCode, res.body).toBe(303);
  const match = /^\/dashboard\/collections\/([0-9a-f-]{36})\?notice=collection-created$/.exec(res.headers.location as string);
  expect(match).not.toBeNull();
  return (match as RegExpExecArray)[1] as string;
}

const api = (method: 'GET' | 'POST' | 'PUT', url: string, json?: unknown) =>
  t.request({ method, url, key: aliceKey, ...(json === undefined ? {} : { json }) });

async function addPeople(collectionId: string, people: Record<string, unknown>[]) {
  for (let i = 0; i < people.length; i += 1000) {
    const res = await api('POST', `/v1/collections/${collectionId}/users/batch`, { users: people.slice(i, i + 1000) });
    expect(res.statusCode, res.body).toBe(201);
  }
  return (await api('GET', `/v1/collections/${collectionId}/users?limit=100`)).json().data as { id: string; email: string }[];
}

async function record(collectionId: string, userId: string) {
  const res = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${userId}/recording`,
    key: aliceKey,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** The ids of the people rows of a people page, in order. */
const rowIds = (page: string) => [...page.matchAll(/<tr data-person-id="([0-9a-f-]{36})">/g)].map((m) => m[1]);
const nextLink = (page: string) => /rel="next" href="([^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');

describe('collections', () => {
  it('the overview offers to create a collection until one exists, then counts them; the nav links them', async () => {
    const fresh = await signIn(t, 'newcomer@example.com', '203.0.113.23');
    const before = await get(t, fresh, '/dashboard');
    expect(before.body).toContain('id="get-started"');
    expect(before.body).toContain('href="/dashboard/collections/new">Create a collection</a>');
    expect(before.body).toMatch(/<nav aria-label="Dashboard">.*href="\/dashboard\/collections">Collections<\/a>/s);
    await createByForm(fresh, { name: 'Speakers' });
    const after = await get(t, fresh, '/dashboard');
    expect(after.body).not.toContain('id="get-started"');
    expect(after.body).not.toContain('Create a collection');
    expect(after.body).toContain('<strong id="collection-count">1</strong> collection');
  });

  it('sets custom fields required in the form, on create and afterwards', async () => {
    const id = await createByForm(alice, {
      name: 'Required fields',
      field_rows: '2',
      field_label_0: 'Seat',
      field_type_0: 'number',
      field_label_1: 'Faculty',
      field_type_1: 'text',
      field_required_1: '1',
    });
    const required = async () =>
      (await api('GET', `/v1/collections/${id}`))
        .json<{ custom_fields: Array<{ key: string; required: boolean }> }>()
        .custom_fields.map((f) => [f.key, f.required]);
    expect(await required()).toEqual([
      ['seat', false],
      ['faculty', true],
    ]);
    const edit = await get(t, alice, `/dashboard/collections/${id}/edit`);
    expect(edit.body).toMatch(/<input type="checkbox" id="existing-required-2" name="required_faculty" value="1" checked>/);
    const res = await post(t, alice, `/dashboard/collections/${id}/fields`, {
      csrf: alice.csrf,
      label_seat: 'Seat',
      label_faculty: 'Faculty',
      required_seat: '1',
    });
    expect(res.statusCode, res.body).toBe(303);
    expect(await required()).toEqual([
      ['seat', true],
      ['faculty', false],
    ]);
  });

  it('creates a collection with custom fields (keys from labels), a multi-line description, then lists it with progress', async () => {
    const id = await createByForm(alice, {
      name: 'Class of 2027',
      description: 'Graduation\nMain hall',
      field_rows: '3',
      field_label_0: 'Seat number',
      field_type_0: 'number',
      field_key_1: 'student_id',
      field_label_1: 'Student ID',
      field_type_1: 'text',
    });
    const created = (await api('GET', `/v1/collections/${id}`)).json();
    expect(created).toMatchObject({ name: 'Class of 2027', description: 'Graduation\nMain hall' });
    expect(created.custom_fields).toEqual([
      { key: 'seat_number', label: 'Seat number', type: 'number', required: false },
      { key: 'student_id', label: 'Student ID', type: 'text', required: false },
    ]);
    const page = await get(t, alice, `/dashboard/collections/${id}?notice=collection-created`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('The collection is created.');

    const [first] = await addPeople(id, [
      { email: 'a@example.com', first_name: 'Ana', last_name: 'Diaz' },
      { email: 'b@example.com', first_name: 'Bo', last_name: 'Li' },
    ]);
    await record(id, (first as { id: string }).id);
    const list = await get(t, alice, '/dashboard/collections');
    const card = new RegExp(`data-collection-id="${id}"[\\s\\S]*?</li>`).exec(list.body)?.[0] as string;
    expect(card).toContain('Class of 2027');
    expect(card).toMatch(/<progress max="2" value="1" aria-labelledby="progress-label-[^"]+"><\/progress>/);
    expect(card).toContain('<strong>1</strong> of 2 recorded');
    expect(card).toContain('(50 %)');
  });

  it('“More field rows” shows the form again with three more rows, keeping what was typed, creating nothing', async () => {
    const before = (await api('GET', '/v1/collections?limit=100')).json().data.length;
    const res = await post(t, alice, '/dashboard/collections', {
      csrf: alice.csrf,
      name: 'Half typed',
      field_rows: '3',
      field_label_0: 'Table',
      more_fields: '1',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('value="Half typed"');
    expect(res.body).toContain('name="field_label_5"');
    expect(res.body).not.toContain('name="field_label_6"');
    expect(res.body).toContain('value="Table"');
    expect((await api('GET', '/v1/collections?limit=100')).json().data.length).toBe(before);
  });

  it('accepts a 255-character name, refuses 256 and a blank one on the form with the input kept', async () => {
    await createByForm(alice, { name: 'n'.repeat(255) });
    const long = await post(t, alice, '/dashboard/collections', { csrf: alice.csrf, name: 'n'.repeat(256), description: 'kept' });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('must be at most 255 characters');
    expect(long.body).toContain('>kept</textarea>');
    expect(long.body).toMatch(/id="collection-name" name="name" value="n{256}"[^>]*aria-invalid="true"/);
    const blank = await post(t, alice, '/dashboard/collections', { csrf: alice.csrf, name: '   ' });
    expect(blank.statusCode).toBe(400);
  });

  it('refuses a field key of the wrong shape and a duplicate key, naming the field row', async () => {
    const bad = await post(t, alice, '/dashboard/collections', {
      csrf: alice.csrf,
      name: 'Bad keys',
      field_rows: '2',
      field_key_1: 'Seat-No',
      field_label_1: 'Seat',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('custom_fields[0].key');
    expect(bad.body).toMatch(/id="field-key-1"[^>]*value="Seat-No"[^>]*aria-invalid="true"/);
    const duplicate = await post(t, alice, '/dashboard/collections', {
      csrf: alice.csrf,
      name: 'Duplicate keys',
      field_rows: '2',
      field_label_0: 'Seat',
      field_label_1: 'seat',
    });
    expect(duplicate.statusCode).toBe(400);
    expect(duplicate.body).toContain('Duplicate custom field key');
  });

  it('accepts 50 custom fields; the form never offers a 51st row', async () => {
    const fields: Record<string, string> = { name: 'Fifty fields', field_rows: '60' };
    for (let i = 0; i < 60; i++) fields[`field_label_${i}`] = `Field ${i}`;
    const id = await createByForm(alice, fields);
    expect((await api('GET', `/v1/collections/${id}`)).json().custom_fields).toHaveLength(50);
    const more = await post(t, alice, '/dashboard/collections', {
      csrf: alice.csrf,
      name: 'x',
      field_rows: '49',
      more_fields: '1',
    });
    expect(more.body).toContain('name="field_label_49"');
    expect(more.body).not.toContain('name="field_label_50"');
    expect(more.body).not.toContain('More field rows');
  });

  it('refuses forms without the session’s token (403) and escapes hostile names', async () => {
    expect((await post(t, alice, '/dashboard/collections', { name: 'No token' })).statusCode).toBe(403);
    expect((await post(t, alice, '/dashboard/collections', { name: 'Other token', csrf: mallory.csrf })).statusCode).toBe(403);
    const id = await createByForm(alice, { name: '<script>alert(1)</script>' });
    for (const url of ['/dashboard/collections', `/dashboard/collections/${id}`, `/dashboard/collections/${id}/reader`]) {
      const page = await get(t, alice, url);
      expect(page.body).not.toContain('<script>alert(1)</script>');
      expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
  });

  it('renames and describes a collection; clearing the description removes it', async () => {
    const id = await createByForm(alice, { name: 'Old name', description: 'Old' });
    const form = await get(t, alice, `/dashboard/collections/${id}/edit`);
    expect(form.body).toContain('value="Old name"');
    const saved = await post(t, alice, `/dashboard/collections/${id}/edit`, {
      csrf: alice.csrf,
      name: 'New name',
      description: '',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/dashboard/collections/${id}?notice=collection-updated`);
    expect((await api('GET', `/v1/collections/${id}`)).json()).toMatchObject({ name: 'New name', description: null });
    const refused = await post(t, alice, `/dashboard/collections/${id}/edit`, { csrf: alice.csrf, name: '' });
    expect(refused.statusCode).toBe(400);
    expect((await api('GET', `/v1/collections/${id}`)).json().name).toBe('New name');
  });

  it('archives after a confirmation page; the collection is then gone from the dashboard and the API', async () => {
    const id = await createByForm(alice, { name: 'To archive' });
    const confirm = await get(t, alice, `/dashboard/collections/${id}/archive`);
    expect(confirm.body).toContain('Archive To archive?');
    expect((await post(t, alice, `/dashboard/collections/${id}/archive`, {})).statusCode).toBe(403);
    const done = await post(t, alice, `/dashboard/collections/${id}/archive`, { csrf: alice.csrf });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/dashboard/collections?notice=collection-archived');
    const list = await get(t, alice, done.headers.location as string);
    expect(list.body).toContain('The collection is archived.');
    expect(list.body).not.toContain(id);
    expect((await get(t, alice, `/dashboard/collections/${id}`)).statusCode).toBe(404);
    expect((await api('GET', `/v1/collections/${id}`)).statusCode).toBe(404);
  });
});

describe('people of a collection', () => {
  let collectionId: string;
  const PEOPLE = 205;

  beforeAll(async () => {
    collectionId = await createByForm(alice, {
      name: 'Big class',
      field_rows: '1',
      field_label_0: 'Seat',
      field_type_0: 'number',
    });
    const people = Array.from({ length: PEOPLE }, (_, i) => ({
      email: `person${String(i).padStart(3, '0')}@example.com`,
      first_name: `First${String(i).padStart(3, '0')}`,
      last_name: i === 7 ? 'Zeta_100%' : `Last${String(PEOPLE - i).padStart(3, '0')}`,
    }));
    await addPeople(collectionId, people);
  });

  const peoplePage = (query = '') => get(t, alice, `/dashboard/collections/${collectionId}${query}`);

  it('shows 100 people per page, newest first, and follows next links to the end without repeats', async () => {
    const seen: string[] = [];
    let url: string | undefined = `/dashboard/collections/${collectionId}`;
    const sizes: number[] = [];
    while (url) {
      const page = await get(t, alice, url);
      expect(page.statusCode).toBe(200);
      sizes.push(rowIds(page.body).length);
      seen.push(...(rowIds(page.body) as string[]));
      url = nextLink(page.body);
    }
    expect(sizes).toEqual([100, 100, 5]);
    expect(new Set(seen).size).toBe(PEOPLE);
    const third = await get(
      t,
      alice,
      nextLink((await get(t, alice, nextLink((await peoplePage()).body) as string)).body) as string,
    );
    expect(third.body).toContain(`People 201–205 of ${PEOPLE}`);
  });

  it('orders by name and by oldest first', async () => {
    const byName = await peoplePage('?order=name');
    expect(byName.body).toMatch(/First000 Last205[\s\S]*First001 Last204/);
    const names = [...byName.body.matchAll(/people\/[0-9a-f-]{36}">([^<]+)<\/a>/g)].map((m) => m[1] as string);
    expect(names).toEqual([...names].sort());
    const oldest = await peoplePage('?order=oldest');
    const newest = await peoplePage('');
    expect(rowIds(oldest.body)[0]).not.toBe(rowIds(newest.body)[0]);
    const secondByName = await get(t, alice, nextLink(byName.body) as string);
    expect(rowIds(secondByName.body)).not.toContain(rowIds(byName.body)[99]);
    expect(rowIds(secondByName.body)).toHaveLength(100);
  });

  it('searches names and e-mails case-insensitively, with % and _ taken literally', async () => {
    const byEmail = await peoplePage('?search=PERSON012%40');
    expect(rowIds(byEmail.body)).toHaveLength(1);
    expect(byEmail.body).toContain('person012@example.com');
    const byName = await peoplePage('?search=first01');
    expect(rowIds(byName.body)).toHaveLength(10);
    const literal = await peoplePage(`?search=${encodeURIComponent('_100%')}`);
    expect(rowIds(literal.body)).toHaveLength(1);
    expect(literal.body).toContain('Zeta_100%');
    const none = await peoplePage('?search=nobody-here');
    expect(none.body).toContain('Nobody here matches.');
  });

  it('filters recorded and not recorded people by their recording status', async () => {
    const [someone] = (await api('GET', `/v1/collections/${collectionId}/users?limit=1`)).json().data;
    await record(collectionId, someone.id);
    const recorded = await peoplePage('?status=recorded');
    expect(rowIds(recorded.body)).toEqual([someone.id]);
    expect(recorded.body).toContain('<span class="badge ok">Recorded</span>');
    const notYet = await peoplePage('?status=not_recorded&order=name');
    expect(rowIds(notYet.body)).not.toContain(someone.id);
    expect(rowIds(notYet.body)).toHaveLength(100);
    expect(rowIds((await peoplePage('?status=needs_rerecord')).body)).toEqual([]);
    // Without review there is nothing to await: the filter is not offered.
    expect(recorded.body).not.toContain('value="awaiting_review"');
  });

  it('refuses a search over 100 characters, a bad order, filter or cursor, and a cursor of another order (400)', async () => {
    expect((await peoplePage(`?search=${'a'.repeat(100)}`)).statusCode).toBe(200);
    const long = await peoplePage(`?search=${'a'.repeat(101)}`);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('at most 100 characters');
    expect((await peoplePage('?order=age')).statusCode).toBe(400);
    expect((await peoplePage('?status=maybe')).statusCode).toBe(400);
    expect((await peoplePage('?cursor=!!')).statusCode).toBe(400);
    const newestCursor = new URL(`http://x${nextLink((await peoplePage()).body)}`).searchParams.get('cursor') as string;
    expect((await peoplePage(`?order=name&cursor=${newestCursor}`)).statusCode).toBe(400);
  });

  it('adds one person through the form, with a typed custom field, and opens their page', async () => {
    const form = await get(t, alice, `/dashboard/collections/${collectionId}/people/new`);
    expect(form.body).toContain('<label for="custom-seat">Seat <span class="muted">(optional)</span></label>');
    const added = await post(t, alice, `/dashboard/collections/${collectionId}/people`, {
      csrf: alice.csrf,
      first_name: 'Siobhán',
      last_name: 'Ní Bhriain',
      email: 'siobhan@example.com',
      phonetic_spelling: 'shi-VAWN nee VREE-in',
      custom_seat: '12',
    });
    expect(added.statusCode).toBe(303);
    const location = added.headers.location as string;
    expect(location).toMatch(new RegExp(`^/dashboard/collections/${collectionId}/people/[0-9a-f-]{36}\\?notice=person-added$`));
    const userId = location.split('/')[5]?.split('?')[0] as string;
    const user = (await api('GET', `/v1/collections/${collectionId}/users/${userId}`)).json();
    expect(user).toMatchObject({
      display_name: 'Siobhán Ní Bhriain',
      phonetic_spelling: 'shi-VAWN nee VREE-in',
      custom_fields: { seat: 12 },
    });
    const page = await get(t, alice, location);
    expect(page.body).toContain('The person is added.');
    expect(page.body).toContain(`value="${user.record_url}"`);
  });

  it('keeps the input and names the problem when adding a person fails (bad e-mail 400, taken e-mail 409, bad number 400)', async () => {
    const url = `/dashboard/collections/${collectionId}/people`;
    const bad = await post(t, alice, url, { csrf: alice.csrf, first_name: 'Kept', last_name: 'Name', email: 'not-an-email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('value="Kept"');
    expect(bad.body).toMatch(/id="email"[^>]*aria-invalid="true"/);
    const taken = await post(t, alice, url, {
      csrf: alice.csrf,
      first_name: 'Dup',
      last_name: 'X',
      email: 'PERSON001@example.com',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.body).toContain('already exists in this collection');
    const number = await post(t, alice, url, {
      csrf: alice.csrf,
      first_name: 'N',
      last_name: 'X',
      email: 'n@example.com',
      custom_seat: 'twelve',
    });
    expect(number.statusCode).toBe(400);
    expect(number.body).toContain('must be a number');
    expect(number.body).toMatch(/id="custom-seat"[^>]*value="twelve"[^>]*aria-invalid="true"/);
  });
});

describe('a person', () => {
  let collectionId: string;
  let recordedId: string;
  let silentId: string;

  beforeAll(async () => {
    collectionId = await createByForm(alice, { name: 'Person pages' });
    const people = await addPeople(collectionId, [
      { email: 'rec@example.com', first_name: 'Aoife', last_name: 'Byrne', phonetic_spelling: 'EE-fa' },
      { email: 'quiet@example.com', first_name: 'Quinn', last_name: 'Silent' },
    ]);
    recordedId = people.find((p) => p.email === 'rec@example.com')?.id as string;
    silentId = people.find((p) => p.email === 'quiet@example.com')?.id as string;
    await record(collectionId, recordedId);
  });

  const personUrl = (id: string) => `/dashboard/collections/${collectionId}/people/${id}`;

  it('shows the recording, phonetic spelling, play link and record link, with copy buttons for the script', async () => {
    const page = await get(t, alice, personUrl(recordedId));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`<audio id="audio" controls preload="metadata" src="${personUrl(recordedId)}/audio"></audio>`);
    expect(page.body).toContain('<dd id="phonetic">EE-fa</dd>');
    const link = (await api('GET', `/v1/collections/${collectionId}/users/${recordedId}/play-link`)).json().play_link;
    expect(page.body).toContain(`id="play-link" class="link-text" readonly value="${link}"`);
    const user = (await api('GET', `/v1/collections/${collectionId}/users/${recordedId}`)).json();
    expect(page.body).toContain(`id="record-link" class="link-text" readonly value="${user.record_url}"`);
    expect(page.body).toContain('<button type="button" data-copy="play-link" hidden>Copy</button>');
    expect(page.body).toMatch(/<script src="\/assets\/copy\.[0-9a-f]{10}\.js" defer><\/script>/);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("media-src 'self' blob:");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('streams the stored MP3 to the signed-in owner without counting a play', async () => {
    const audio = await get(t, alice, `${personUrl(recordedId)}/audio`);
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/mpeg');
    const row = await t.deps.db.kysely
      .selectFrom('recordings')
      .selectAll()
      .where('user_id', '=', recordedId)
      .executeTakeFirstOrThrow();
    expect(audio.rawPayload.equals((await t.deps.blobs.get(row.blob_key)) as Buffer)).toBe(true);
    expect(audio.headers['cache-control']).toBe('private, no-store');
    expect(t.deps.playLinks.counter.take().size).toBe(0);
    expect((await get(t, alice, `${personUrl(silentId)}/audio`)).statusCode).toBe(404);
  });

  it('without a recording: no player, and the record link to send', async () => {
    const page = await get(t, alice, personUrl(silentId));
    expect(page.body).not.toContain('<audio');
    expect(page.body).toContain('id="no-recording"');
    expect(page.body).toContain('id="record-link"');
    expect(page.body).not.toContain('Delete recording…');
  });

  it('deletes the recording after a confirmation page; the counts follow', async () => {
    const id = (await addPeople(collectionId, [{ email: 'del-rec@example.com', first_name: 'Del', last_name: 'Rec' }])).find(
      (p) => p.email === 'del-rec@example.com',
    )?.id as string;
    await record(collectionId, id);
    const before = (await api('GET', `/v1/collections/${collectionId}`)).json().recorded_count;
    const confirm = await get(t, alice, `${personUrl(id)}/delete-recording`);
    expect(confirm.body).toContain('Delete the recording of Del Rec?');
    expect((await post(t, alice, `${personUrl(id)}/delete-recording`, {})).statusCode).toBe(403);
    const done = await post(t, alice, `${personUrl(id)}/delete-recording`, { csrf: alice.csrf });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${personUrl(id)}?notice=recording-deleted`);
    expect((await api('GET', `/v1/collections/${collectionId}/users/${id}`)).json().has_recording).toBe(false);
    expect((await api('GET', `/v1/collections/${collectionId}`)).json().recorded_count).toBe(before - 1);
    expect((await get(t, alice, done.headers.location as string)).body).toContain('The recording is deleted.');
  });

  it('deletes the person after a confirmation page', async () => {
    const id = (await addPeople(collectionId, [{ email: 'leaving@example.com', first_name: 'Leaving', last_name: 'Soon' }])).find(
      (p) => p.email === 'leaving@example.com',
    )?.id as string;
    expect((await get(t, alice, `${personUrl(id)}/delete`)).body).toContain('Delete Leaving Soon?');
    expect((await post(t, alice, `${personUrl(id)}/delete`, { csrf: mallory.csrf })).statusCode).toBe(403);
    const done = await post(t, alice, `${personUrl(id)}/delete`, { csrf: alice.csrf });
    expect(done.headers.location).toBe(`/dashboard/collections/${collectionId}?notice=person-deleted`);
    expect((await api('GET', `/v1/collections/${collectionId}/users/${id}`)).statusCode).toBe(404);
    expect((await get(t, alice, personUrl(id))).statusCode).toBe(404);
  });
});

describe('ceremony reader', () => {
  let collectionId: string;
  let ids: Record<string, string>;

  beforeAll(async () => {
    collectionId = await createByForm(alice, {
      name: 'Ceremony',
      field_rows: '1',
      field_label_0: 'Seat',
      field_type_0: 'number',
    });
    const people = await addPeople(collectionId, [
      {
        email: 'c@example.com',
        first_name: 'Cara',
        last_name: 'Young',
        custom_fields: { seat: 10 },
        phonetic_spelling: 'KAH-ra',
      },
      { email: 'a@example.com', first_name: 'Abel', last_name: 'Moreau', custom_fields: { seat: 2 } },
      { email: 'b@example.com', first_name: 'Bea', last_name: 'adams', custom_fields: { seat: 9 } },
      { email: 'd@example.com', first_name: 'Dev', last_name: 'Nair' },
    ]);
    ids = Object.fromEntries(people.map((p) => [p.email[0] as string, p.id]));
    await record(collectionId, ids.c as string);
  });

  const reader = (query = '') => get(t, alice, `/dashboard/collections/${collectionId}/reader${query}`);
  const order = (page: string) => [...page.matchAll(/data-person-id="([0-9a-f-]{36})"/g)].map((m) => m[1]);

  it('lists everyone in import order by default, with phonetic spelling, and audio only for the recorded', async () => {
    const page = await reader();
    expect(page.statusCode).toBe(200);
    expect(order(page.body)).toEqual([ids.c, ids.a, ids.b, ids.d]);
    expect(page.body).toContain('<p class="seq">1 of 4</p>');
    expect(page.body).toContain('<p class="phonetic">KAH-ra</p>');
    expect(page.body).toContain(`data-audio="/dashboard/collections/${collectionId}/people/${ids.c}/audio"`);
    expect(page.body.match(/data-audio=/g)).toHaveLength(1);
    // Nobody else has a guide yet (the background job has not run): nothing to play.
    expect(page.body.match(/<p class="no-recording">Nothing to play yet<\/p>/g)).toHaveLength(3);
    expect(page.body).toMatch(/<script src="\/assets\/reader\.[0-9a-f]{10}\.js" defer>/);
    expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
  });

  it('orders by last name (case-insensitive) and by a custom field (numerically, people without a value last)', async () => {
    expect(order((await reader('?order=last_name')).body)).toEqual([ids.b, ids.a, ids.d, ids.c]);
    const bySeat = await reader('?order=custom:seat');
    expect(order(bySeat.body)).toEqual([ids.a, ids.b, ids.c, ids.d]);
    expect(bySeat.body).toContain('1 of 4 · Seat: 2');
    expect(bySeat.body).toContain('<option value="custom:seat" selected>Seat</option>');
    expect((await reader('?order=custom:nothing')).statusCode).toBe(400);
    expect((await reader('?order=age')).statusCode).toBe(400);
  });

  it(`loads up to 5,000 people and refuses more with an explanation`, async () => {
    const big = await createByForm(alice, { name: 'Stadium' });
    const people = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        email: `s${from + i}@example.com`,
        first_name: 'S',
        last_name: String(from + i),
      }));
    await addPeople(big, people(0, 5000));
    const full = await get(t, alice, `/dashboard/collections/${big}/reader`);
    expect(full.statusCode).toBe(200);
    expect(full.body.match(/<li class="person"/g)).toHaveLength(5000);
    await addPeople(big, people(5000, 1));
    const over = await get(t, alice, `/dashboard/collections/${big}/reader`);
    expect(over.body).toContain('id="too-many"');
    expect(over.body).not.toContain('<li class="person"');
  }, 120_000);
});

describe('another account', () => {
  it('gets 404 for every page and form of someone else’s collection and people', async () => {
    const collectionId = await createByForm(alice, { name: 'Private' });
    const [person] = await addPeople(collectionId, [{ email: 'private@example.com', first_name: 'Pri', last_name: 'Vate' }]);
    await record(collectionId, (person as { id: string }).id);
    const base = `/dashboard/collections/${collectionId}`;
    const personBase = `${base}/people/${(person as { id: string }).id}`;
    for (const url of [
      base,
      `${base}/edit`,
      `${base}/archive`,
      `${base}/reader`,
      `${base}/people/new`,
      personBase,
      `${personBase}/audio`,
      `${personBase}/delete`,
      `${personBase}/delete-recording`,
      '/dashboard/collections/not-a-uuid',
    ]) {
      expect((await get(t, mallory, url)).statusCode, url).toBe(404);
    }
    for (const url of [
      `${base}/edit`,
      `${base}/archive`,
      `${base}/people`,
      `${personBase}/delete`,
      `${personBase}/delete-recording`,
    ]) {
      const res = await post(t, mallory, url, {
        csrf: mallory.csrf,
        name: 'Hijack',
        first_name: 'X',
        last_name: 'Y',
        email: 'x@example.com',
      });
      expect(res.statusCode, url).toBe(404);
    }
    expect((await get(t, mallory, '/dashboard/collections')).body).not.toContain(collectionId);
    const still = (await api('GET', `/v1/collections/${collectionId}`)).json();
    expect(still).toMatchObject({ name: 'Private', member_count: 1, recorded_count: 1 });
  });
});
