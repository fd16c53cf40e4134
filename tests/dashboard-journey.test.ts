/**
 * The organiser's collection work in the dashboard, through the real app and database: review
 * (approve, ask for a new recording with a note the record page shows, status filters), the CSV
 * and ZIP downloads, the two-step CSV import (preview with every error, confirm, held file bound
 * to the browser and expiring), custom fields after creation, and one-name people with
 * preferred names and pronouns. Viewers may read and download, never change; everything that
 * changes something is in the audit log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Browserish, cookieHeader, get, inviteAndJoin, post, signIn, uploadFile } from './helpers/dashboard.js';
import { readZip } from './helpers/zip.js';

type Session = Browserish & { csrf: string };

let t: TestApp;
let owner: Session;
let viewer: Session;
let stranger: Session;
let key: string;
const OWNER = 'registrar@example.com';

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.31');
  viewer = await inviteAndJoin(t, owner, 'looker@example.com', 'viewer', '203.0.113.32');
  stranger = await signIn(t, 'stranger@example.com', '203.0.113.33');
  ({ key } = await t.newAccount(OWNER));
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

async function newCollection(body: Record<string, unknown>): Promise<string> {
  const res = await api('POST', '/v1/collections', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id as string;
}

async function addPeople(collectionId: string, users: Record<string, unknown>[]) {
  const res = await api('POST', `/v1/collections/${collectionId}/users/batch`, { users });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; email: string; record_url: string }[];
}

async function record(collectionId: string, userId: string) {
  const res = await t.request({
    method: 'PUT',
    url: `/v1/collections/${collectionId}/users/${userId}/recording`,
    key,
    headers: { 'content-type': 'audio/wav' },
    payload: fs.readFileSync(speechWav()),
  });
  expect(res.statusCode, res.body).toBe(200);
}

const collectionOf = async (id: string) => (await api('GET', `/v1/collections/${id}`)).json();
const rowIds = (page: string) => [...page.matchAll(/<tr data-person-id="([0-9a-f-]{36})">/g)].map((m) => m[1]);
const auditActions = async () =>
  (
    await t.deps.db.kysely.selectFrom('audit_log').select(['action', 'object_id']).orderBy('created_at').orderBy('id').execute()
  ).map((e) => `${e.action} ${e.object_id}`);

const upload = (who: Session, url: string, file: { name: string; data: Buffer } | null, csrf = who.csrf) =>
  uploadFile(t, who, url, file, csrf);

const uploadToken = (page: string) => /name="upload" value="([A-Za-z0-9_-]{43})"/.exec(page)?.[1] as string;

describe('review in the dashboard', () => {
  let collectionId: string;
  let people: { id: string; email: string; record_url: string }[];

  beforeAll(async () => {
    collectionId = await newCollection({ name: 'Graduation' });
    people = await addPeople(collectionId, [
      { email: 'ada@example.com', first_name: 'Ada', last_name: 'Obi' },
      { email: 'bo@example.com', first_name: 'Bo', last_name: 'Lin' },
      { email: 'cy@example.com', first_name: 'Cy' },
    ]);
    await record(collectionId, people[0]!.id);
    await record(collectionId, people[1]!.id);
  });

  it('switches review on from the edit page, which recounts the progress', async () => {
    const edit = await get(t, owner, `/dashboard/collections/${collectionId}/edit`);
    expect(edit.body).toContain(
      '<label class="check" for="review-required"><input type="checkbox" id="review-required" name="review_required" value="1">',
    );
    expect((await collectionOf(collectionId)).recorded_count).toBe(2);
    const saved = await post(t, owner, `/dashboard/collections/${collectionId}/edit`, {
      csrf: owner.csrf,
      name: 'Graduation',
      description: '',
      review_required: '1',
    });
    expect(saved.statusCode).toBe(303);
    expect(await collectionOf(collectionId)).toMatchObject({ review_required: true, recorded_count: 0 });
    const page = await get(t, owner, `/dashboard/collections/${collectionId}`);
    expect(page.body).toContain('id="review-on"');
    expect(page.body).toContain('<strong>0</strong> of 3 recorded');
    expect(page.body.match(/<span class="badge wait">Awaiting review<\/span>/g)).toHaveLength(2);
    expect(page.body).toContain('<option value="awaiting_review">Awaiting review</option>');
    expect((await get(t, owner, `/dashboard/collections/${collectionId}/edit`)).body).toMatch(
      /id="review-required"[^>]* checked/,
    );
  });

  it('approves one recording and asks for a new one of another; the record page shows the note', async () => {
    const [ada, bo] = people as [(typeof people)[0], (typeof people)[0]];
    const personUrl = (id: string) => `/dashboard/collections/${collectionId}/people/${id}`;
    const before = await get(t, owner, personUrl(ada.id));
    expect(before.body).toContain('<button type="submit" class="primary">Approve recording</button>');
    expect(before.body).toContain('<label for="review-note-input">');

    const approved = await post(t, owner, `${personUrl(ada.id)}/review`, { csrf: owner.csrf, decision: 'approve' });
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe(`${personUrl(ada.id)}?notice=recording-approved`);
    const adaPage = await get(t, owner, approved.headers.location as string);
    expect(adaPage.body).toContain('The recording is approved.');
    expect(adaPage.body).toContain('<span class="badge ok">Approved</span>');
    expect((await collectionOf(collectionId)).recorded_count).toBe(1);

    const note = 'Please say the full name, slowly:\nfirst name then "Lin".';
    const asked = await post(t, owner, `${personUrl(bo.id)}/review`, { csrf: owner.csrf, decision: 'request_rerecord', note });
    expect(asked.statusCode).toBe(303);
    const boPage = await get(t, owner, asked.headers.location as string);
    expect(boPage.body).toContain('<span class="badge off">Needs re-record</span>');
    expect(boPage.body).toContain('first name then &quot;Lin&quot;.');
    const recordPage = await t.app.inject({ method: 'GET', url: new URL(bo.record_url).pathname });
    expect(recordPage.statusCode).toBe(200);
    expect(recordPage.body).toContain('first name then &quot;Lin&quot;.');

    const table = (status: string) => get(t, owner, `/dashboard/collections/${collectionId}?status=${status}`);
    expect(rowIds((await table('recorded')).body)).toEqual([ada.id]);
    expect(rowIds((await table('needs_rerecord')).body)).toEqual([bo.id]);
    expect(rowIds((await table('not_recorded')).body)).toEqual([people[2]!.id]);
    expect(rowIds((await table('awaiting_review')).body)).toEqual([]);
    const actions = await auditActions();
    expect(actions).toEqual(expect.arrayContaining([`recording.reviewed ${ada.id}`, `recording.reviewed ${bo.id}`]));
  });

  it('needs a note of 1 to 500 characters to ask for a new recording, and a recording to review', async () => {
    const url = `/dashboard/collections/${collectionId}/people/${people[0]!.id}/review`;
    const empty = await post(t, owner, url, { csrf: owner.csrf, decision: 'request_rerecord', note: '  ' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('id="form-error"');
    expect(empty.body).toMatch(/<textarea id="review-note-input"[^>]*aria-invalid="true"/);
    const long = await post(t, owner, url, { csrf: owner.csrf, decision: 'request_rerecord', note: 'é'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain(`>${'é'.repeat(501)}</textarea>`);
    const exact = await post(t, owner, url, { csrf: owner.csrf, decision: 'request_rerecord', note: 'é'.repeat(500) });
    expect(exact.statusCode).toBe(303);
    const nothing = await post(t, owner, `/dashboard/collections/${collectionId}/people/${people[2]!.id}/review`, {
      csrf: owner.csrf,
      decision: 'approve',
    });
    expect(nothing.statusCode).toBe(409);
    expect(nothing.body).toContain('no recording to review');
  });

  it('shows a viewer the status but no review form, and refuses their review', async () => {
    const url = `/dashboard/collections/${collectionId}/people/${people[0]!.id}`;
    const page = await get(t, viewer, url);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="recording-status"');
    expect(page.body).not.toContain('action="' + url + '/review"');
    expect((await post(t, viewer, `${url}/review`, { csrf: viewer.csrf, decision: 'approve' })).statusCode).toBe(403);
    expect((await post(t, stranger, `${url}/review`, { csrf: stranger.csrf, decision: 'approve' })).statusCode).toBe(404);
  });
});

describe('downloads', () => {
  let collectionId: string;
  let people: { id: string }[];

  beforeAll(async () => {
    collectionId = await newCollection({ name: 'Speakers 2027', custom_fields: [{ key: 'talk', label: 'Talk', type: 'text' }] });
    people = await addPeople(collectionId, [
      { email: 'one@example.com', first_name: 'Amaru', custom_fields: { talk: '=cmd()' } },
      { email: 'two@example.com', first_name: 'Bea', last_name: 'Ruiz' },
    ]);
    await record(collectionId, people[0]!.id);
  });

  it('offers CSV and ZIP downloads that any member, a viewer too, can download', async () => {
    const page = await get(t, viewer, `/dashboard/collections/${collectionId}`);
    expect(page.body).toContain(
      `<form method="get" action="/dashboard/collections/${collectionId}/export" class="row" id="downloads">`,
    );
    expect(page.body).toContain('<button type="submit" name="format" value="csv">Download CSV</button>');
    expect(page.body).not.toContain('Import a CSV file');
    const csv = await get(t, viewer, `/dashboard/collections/${collectionId}/export?format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="Speakers 2027\.csv"/);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toContain("'=cmd()");

    const zip = await t.app.inject({
      method: 'GET',
      url: `/dashboard/collections/${collectionId}/export?format=zip`,
      headers: { cookie: cookieHeader(owner) },
    });
    expect(zip.statusCode).toBe(200);
    expect(zip.headers['content-type']).toBe('application/zip');
    const entries = await readZip(zip.rawPayload);
    expect(entries.map((e) => e.name)).toEqual(['2-Amaru.mp3', 'people.csv']);
    expect(entries[0]!.data.subarray(0, 3).toString('latin1')).toMatch(/^(ID3|\xff\xfb|\xff\xf3)/);
  });

  it('refuses an unknown format (400) and another organisation’s collection (404)', async () => {
    expect((await get(t, owner, `/dashboard/collections/${collectionId}/export?format=xlsx`)).statusCode).toBe(400);
    expect((await get(t, stranger, `/dashboard/collections/${collectionId}/export?format=csv`)).statusCode).toBe(404);
  });
});

describe('CSV import in two steps', () => {
  let collectionId: string;
  const importUrl = () => `/dashboard/collections/${collectionId}/import`;
  const BAD = [
    'First Name,Surname,E-mail,Seat,Shoe size',
    'Ada,Obi,ada@example.com,12,40',
    'Bo,,not-an-email,abc,41',
    'Cy,,cy@example.com,3,',
    '',
  ].join('\r\n');
  const FIXED = BAD.replace('not-an-email,abc', 'bo@example.com,7');

  beforeAll(async () => {
    collectionId = await newCollection({ name: 'Imports', custom_fields: [{ key: 'seat', label: 'Seat', type: 'number' }] });
  });

  it('links the import from the collection page and shows the upload form', async () => {
    const page = await get(t, owner, `/dashboard/collections/${collectionId}`);
    expect(page.body).toContain(`<a class="button" href="${importUrl()}">Import a CSV file</a>`);
    const form = await get(t, owner, importUrl());
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('enctype="multipart/form-data"');
    expect(form.body).toContain('<input id="import-file" name="file" type="file"');
    expect(form.body).toContain('<code>seat</code>');
  });

  it('previews every error with its row and column, the ignored column, the counts and the rows, writing nothing', async () => {
    const res = await upload(owner, importUrl(), { name: 'class <2027>.csv', data: Buffer.from(BAD) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).toContain('<strong>class &lt;2027&gt;.csv</strong>: 3 people, <strong>1 row has errors</strong>');
    const errors = [...res.body.matchAll(/<li data-row="(\d+)"><strong>Row \d+<\/strong>, column “([^”]+)”/g)].map(
      (m) => `${m[1]} ${m[2]}`,
    );
    expect(errors).toEqual(['3 E-mail', '3 Seat', '1 Shoe size']);
    expect(res.body).toContain('<strong id="count-created">2</strong> to create');
    expect(res.body).toContain('<strong id="count-failed">1</strong> with errors');
    expect(res.body).toMatch(
      /<tr data-row="2">\s*<td data-label="Row">2<\/td>\s*<td data-label="Will be">New<\/td>\s*<td data-label="Name">Ada Obi<\/td>/,
    );
    expect(res.body).toMatch(/<tr data-row="4">[\s\S]*?<td data-label="Name">Cy<\/td>/);
    expect(res.body).toContain('<td data-label="Seat">12</td>');
    expect(res.body).toContain('Import only the 2 valid rows');
    expect((await collectionOf(collectionId)).member_count).toBe(0);
    expect(await auditActions()).not.toContain(`users.imported ${collectionId}`);
  });

  it('keeps the file for this browser only, then imports the valid rows and reports them', async () => {
    const preview = await upload(owner, importUrl(), { name: 'people.csv', data: Buffer.from(BAD) });
    const token = uploadToken(preview.body);
    // Another member's browser cannot use the token.
    const admin = await inviteAndJoin(t, owner, 'helper@example.com', 'admin', '203.0.113.34');
    const foreign = await post(t, admin, `${importUrl()}/confirm`, { csrf: admin.csrf, upload: token, mode: 'valid_rows' });
    expect(foreign.statusCode).toBe(410);
    expect(foreign.body).toContain('Upload the file again.');

    const done = await post(t, owner, `${importUrl()}/confirm`, { csrf: owner.csrf, upload: token, mode: 'valid_rows' });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.body).toContain('<strong id="count-created">2</strong> created');
    expect(done.body).toContain('<strong id="count-failed">1</strong> failed (not imported)');
    expect(done.body).toContain('<li data-row="3"><strong>Row 3</strong>');
    expect((await collectionOf(collectionId)).member_count).toBe(2);
    expect(await auditActions()).toContain(`users.imported ${collectionId}`);
    // Used once: the held file is gone.
    const again = await post(t, owner, `${importUrl()}/confirm`, { csrf: owner.csrf, upload: token, mode: 'valid_rows' });
    expect(again.statusCode).toBe(410);
  });

  it('imports the fixed file whole: the others are unchanged, the fixed row created, in file order', async () => {
    const preview = await upload(owner, importUrl(), { name: 'people.csv', data: Buffer.from(FIXED) });
    expect(preview.body).toContain(', no errors.');
    expect(preview.body).toContain('<strong id="count-unchanged">2</strong> unchanged');
    expect(preview.body).toContain('<input type="hidden" name="mode" value="all_or_nothing">');
    const done = await post(t, owner, `${importUrl()}/confirm`, {
      csrf: owner.csrf,
      upload: uploadToken(preview.body),
      mode: 'all_or_nothing',
    });
    expect(done.body).toContain('<strong id="count-created">1</strong> created');
    expect(done.body).toContain('<strong id="count-unchanged">2</strong> unchanged');
    const reader = await get(t, owner, `/dashboard/collections/${collectionId}/reader`);
    const names = [...reader.body.matchAll(/<h2 class="name">([^<]+)<\/h2>/g)].map((m) => m[1]);
    expect(names).toEqual(['Ada Obi', 'Cy', 'Bo']);
  });

  it('expires a held file after 30 minutes', async () => {
    const preview = await upload(owner, importUrl(), { name: 'people.csv', data: Buffer.from(FIXED) });
    const held = path.join(t.config.dataDir, 'blobs', 'import-uploads');
    const newest = fs
      .readdirSync(held)
      .map((name) => path.join(held, name))
      .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0] as string;
    const old = new Date(Date.now() - 31 * 60 * 1000);
    fs.utimesSync(newest, old, old);
    const expired = await post(t, owner, `${importUrl()}/confirm`, {
      csrf: owner.csrf,
      upload: uploadToken(preview.body),
      mode: 'all_or_nothing',
    });
    expect(expired.statusCode).toBe(410);
    expect(fs.existsSync(newest)).toBe(false);
  });

  it('shows a whole-file refusal on the form: no file, no usable header, more than 5 MB', async () => {
    const none = await upload(owner, importUrl(), null);
    expect(none.statusCode).toBe(400);
    expect(none.body).toContain('Choose a CSV file to import.');
    const header = await upload(owner, importUrl(), { name: 'x.csv', data: Buffer.from('Name,Phone\r\nAda,1\r\n') });
    expect(header.statusCode).toBe(400);
    expect(header.body).toContain('<li data-row="1"><strong>Row 1</strong>');
    expect(header.body).toContain('id="import-upload"');
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 'a');
    const tooBig = await upload(owner, importUrl(), { name: 'big.csv', data: big });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.body).toContain('larger than 5 MB');
  });

  it('refuses the upload and the confirmation to a viewer, a missing form token, and another organisation', async () => {
    expect((await upload(viewer, importUrl(), { name: 'p.csv', data: Buffer.from(FIXED) })).statusCode).toBe(403);
    expect((await upload(owner, importUrl(), { name: 'p.csv', data: Buffer.from(FIXED) }, 'wrong-token')).statusCode).toBe(403);
    expect((await get(t, viewer, importUrl())).statusCode).toBe(200);
    expect((await get(t, stranger, importUrl())).statusCode).toBe(404);
    expect((await upload(stranger, importUrl(), { name: 'p.csv', data: Buffer.from(FIXED) })).statusCode).toBe(404);
    expect(
      (await post(t, viewer, `${importUrl()}/confirm`, { csrf: viewer.csrf, upload: 'x', mode: 'valid_rows' })).statusCode,
    ).toBe(403);
  });
});

describe('custom fields after creation', () => {
  it('adds, relabels and removes fields, keeping the values of the fields that stay', async () => {
    const collectionId = await newCollection({
      name: 'Fields',
      custom_fields: [
        { key: 'seat', label: 'Seat', type: 'number' },
        { key: 'faculty', label: 'Faculty', type: 'text' },
      ],
    });
    const [person] = await addPeople(collectionId, [
      { email: 'f@example.com', first_name: 'Fe', custom_fields: { seat: 4, faculty: 'Law' } },
    ]);
    const edit = await get(t, owner, `/dashboard/collections/${collectionId}/edit`);
    expect(edit.body).toContain('name="label_seat" value="Seat"');
    expect(edit.body).toContain('<input type="checkbox" name="remove_faculty" value="1">');

    const more = await post(t, owner, `/dashboard/collections/${collectionId}/fields`, {
      csrf: owner.csrf,
      label_seat: 'Seat number',
      label_faculty: 'Faculty',
      field_rows: '1',
      more_fields: '1',
    });
    expect(more.statusCode).toBe(200);
    expect(more.body).toContain('name="label_seat" value="Seat number"');
    expect(more.body.match(/<legend>New field \d<\/legend>/g)).toHaveLength(4);

    const saved = await post(t, owner, `/dashboard/collections/${collectionId}/fields`, {
      csrf: owner.csrf,
      label_seat: 'Seat number',
      label_faculty: 'Faculty',
      remove_faculty: '1',
      field_rows: '1',
      field_label_0: 'Guest count',
      field_key_0: '',
      field_type_0: 'number',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    expect((await collectionOf(collectionId)).custom_fields).toEqual([
      { key: 'seat', label: 'Seat number', type: 'number', required: false },
      { key: 'guest_count', label: 'Guest count', type: 'number', required: false },
    ]);
    const user = (await api('GET', `/v1/collections/${collectionId}/users/${person!.id}`)).json();
    expect(user.custom_fields).toEqual({ seat: 4 });

    const blank = await post(t, owner, `/dashboard/collections/${collectionId}/fields`, {
      csrf: owner.csrf,
      label_seat: '',
      label_guest_count: 'Guests',
      field_rows: '0',
    });
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('id="fields-error"');
    expect((await post(t, viewer, `/dashboard/collections/${collectionId}/fields`, { csrf: viewer.csrf })).statusCode).toBe(403);
    expect(await auditActions()).toContain(`collection.fields_changed ${collectionId}`);
  });
});

describe('names that do not fit first + last', () => {
  it('adds a one-name person with a preferred name and pronouns; the table, person page and reader show them', async () => {
    const collectionId = await newCollection({ name: 'Names' });
    const form = await get(t, owner, `/dashboard/collections/${collectionId}/people/new`);
    expect(form.body).toContain('<label for="last-name">Last name <span class="muted">(optional');
    expect(form.body).toContain('<label for="pronouns">Pronouns');
    const added = await post(t, owner, `/dashboard/collections/${collectionId}/people`, {
      csrf: owner.csrf,
      first_name: 'Sukarno',
      last_name: '',
      email: 'sukarno@example.com',
      display_name: '',
      preferred_name: 'Bung',
      pronouns: 'he/him',
      phonetic_spelling: '',
      external_id: '',
    });
    expect(added.statusCode, added.body).toBe(303);
    const person = await get(t, owner, (added.headers.location as string).split('?')[0] as string);
    expect(person.body).toContain('<h1 id="person-name">Sukarno</h1>');
    expect(person.body).toContain('<dt>Preferred name</dt><dd>Bung</dd>');
    expect(person.body).toContain('<dt>Pronouns</dt><dd>he/him</dd>');
    const table = await get(t, owner, `/dashboard/collections/${collectionId}`);
    expect(table.body).toContain('>Sukarno</a><br><span class="muted preferred">goes by Bung · he/him</span>');
    const reader = await get(t, owner, `/dashboard/collections/${collectionId}/reader`);
    expect(reader.body).toContain('Preferred name: <strong>Bung</strong> · Pronouns: <strong>he/him</strong>');

    const tooLong = await post(t, owner, `/dashboard/collections/${collectionId}/people`, {
      csrf: owner.csrf,
      first_name: 'A',
      email: 'a@example.com',
      pronouns: 'x'.repeat(41),
    });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toMatch(/<input id="pronouns"[^>]*aria-invalid="true"/);
    const justRight = await post(t, owner, `/dashboard/collections/${collectionId}/people`, {
      csrf: owner.csrf,
      first_name: 'A',
      email: 'a@example.com',
      pronouns: 'x'.repeat(40),
      preferred_name: 'p'.repeat(100),
    });
    expect(justRight.statusCode).toBe(303);
  });
});
