/**
 * GET /v1/collections/{id}/export over real connections: the CSV (import order, every column,
 * formulas made inert, BOM), the ZIP read back with yauzl (MP3 names and bytes, the CSV inside)
 * from disk and from S3, one audio stream at a time, no time limit while the client reads, and
 * a client that goes away stops the work.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../src/blobs/index.js';
import { S3BlobStore } from '../src/blobs/s3.js';
import { ownerFolderPrefix } from '../src/lib/process-temp.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { authContract } from './helpers/auth-contract.js';
import { addRecording } from './helpers/play-link-fixtures.js';
import { startTestS3, type TestS3 } from './helpers/s3.js';
import { readZip, WatchedBlobStore } from './helpers/zip.js';
import { within } from './helpers/within.js';

type Server = TestApp & { url: string };

/** A disk blob store in its own temporary folder (removed after the file), watched. */
const blobDirs: string[] = [];
function watchedDiskStore(): WatchedBlobStore {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-test-blobs-'));
  blobDirs.push(dataDir);
  return new WatchedBlobStore(createBlobStore({ blobs: { store: 'disk' }, dataDir } as never));
}
afterAll(() => {
  for (const dir of blobDirs) fs.rmSync(dir, { recursive: true, force: true });
});

const FIELDS = [
  { key: 'seat', label: 'Seat', type: 'text' },
  { key: 'year', label: 'Year', type: 'number' },
  { key: 'alumni', label: 'Alumni', type: 'boolean' },
];

const PEOPLE = [
  { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', custom_fields: { seat: 'A1', year: 1843, alumni: true } },
  {
    email: 'evil@example.com',
    first_name: '=HYPERLINK("http://evil.example","click")',
    last_name: '+1',
    display_name: '@SUM(A1:A9)',
    phonetic_spelling: '-2+3',
    custom_fields: { seat: ' =cmd|calc', year: -5 },
  },
  { email: 'siobhan@example.com', first_name: 'Siobhán', last_name: 'Ní Bhriain', display_name: 'Siobhán / "Shiv" Ní Bhriain' },
  { email: 'zed@example.com', first_name: 'Zed', last_name: 'Quoted, Name', external_id: 'Z-9' },
  { email: 'twin1@example.com', first_name: 'Sam', last_name: 'Lee' },
  { email: 'twin2@example.com', first_name: 'Sam', last_name: 'Lee' },
];

async function setUp(t: Server, key: string) {
  const collection = (
    await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027: Ünï', custom_fields: FIELDS } })
  ).json();
  const created = await t.request({
    method: 'POST',
    url: `/v1/collections/${collection.id}/users/batch`,
    key,
    json: { users: PEOPLE },
  });
  expect(created.statusCode, created.body).toBe(201);
  const users = created.json().data as { id: string; display_name: string; record_url: string }[];
  return { collectionId: collection.id as string, users };
}

const exportUrl = (t: Server, collectionId: string, format: string) =>
  `${t.url}/v1/collections/${collectionId}/export?format=${format}`;

async function download(t: Server, key: string, collectionId: string, format: string) {
  const res = await fetch(exportUrl(t, collectionId, format), { headers: { authorization: `Bearer ${key}` } });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

const csvRows = (bytes: Buffer): string[][] => {
  const text = bytes.toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  expect(text).toContain('\r\n');
  // Every cell quoted, so a spreadsheet whose list separator is `;` or a tab never splits a value.
  expect(text.slice(1)).toMatch(/^(?:"(?:[^"]|"")*"(?:,|\r\n))+$/);
  return parse(text.slice(1), { relax_column_count: false });
};

describe('export from disk', () => {
  let t: Server;
  let key: string;
  let collectionId: string;
  let users: { id: string; display_name: string; record_url: string }[];
  let watched: WatchedBlobStore;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    watched = watchedDiskStore();
    t = await startTestServer({ overrides: { blobs: watched } });
    ({ key } = await t.newAccount());
    ({ collectionId, users } = await setUp(t, key));
    // Recordings for Ada, the formula name, Siobhán and both Sams (not Zed).
    for (const index of [0, 1, 2, 4, 5]) {
      const user = users[index]!;
      tokens.set(user.id, await addRecording(t, user.id, { text: `Name ${index}` }));
    }
    const review = await t.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users/${users[1]!.id}/review`,
      key,
      json: { decision: 'request_rerecord', note: 'Please say it slowly.' },
    });
    expect(review.statusCode).toBe(200);
  });
  afterAll(() => t.close());

  it('CSV: one row per person in import order, every column, formulas inert', async () => {
    const { res, body } = await download(t, key, collectionId, 'csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Class of 2027 _n_.csv"; filename*=UTF-8''Class%20of%202027%20%C3%9Cn%C3%AF.csv`,
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    const [header, ...rows] = csvRows(body);
    expect(header).toEqual([
      'display_name',
      'first_name',
      'last_name',
      'email',
      'external_id',
      'phonetic_spelling',
      'play_link',
      'record_url',
      'recording_status',
      'review_note',
      'seat',
      'year',
      'alumni',
      'name_language',
      'pronunciation_coverage',
      'respelling',
      'ipa',
      'not_like',
      'pronunciation_approved_at',
      'preferred_name',
      'pronouns',
      'language',
      'invitation_status',
      'review_status',
    ]);
    // The batch's order, although its rows share one created_at and have random ids.
    expect(rows.map((r) => r[3])).toEqual(PEOPLE.map((p) => p.email));
    const byEmail = new Map(rows.map((r) => [r[3], Object.fromEntries(header!.map((h, i) => [h, r[i]]))]));
    expect(byEmail.get('ada@example.com')).toMatchObject({
      display_name: 'Ada Lovelace',
      play_link: `${t.url}/p/${tokens.get(users[0]!.id)}`,
      record_url: users[0]!.record_url,
      recording_status: 'recorded',
      review_note: '',
      seat: 'A1',
      year: '1843',
      alumni: 'true',
      pronunciation_coverage: 'recording',
      invitation_status: 'not_invited',
      review_status: 'not_reviewed',
    });
    expect(byEmail.get('evil@example.com')).toMatchObject({
      display_name: "'@SUM(A1:A9)",
      first_name: `'=HYPERLINK("http://evil.example","click")`,
      last_name: "'+1",
      phonetic_spelling: "'-2+3",
      seat: "' =cmd|calc",
      year: "'-5",
      recording_status: 'needs_rerecord',
      review_note: 'Please say it slowly.',
      review_status: 'needs_rerecord',
    });
    expect(byEmail.get('zed@example.com')).toMatchObject({
      last_name: 'Quoted, Name',
      external_id: 'Z-9',
      play_link: '',
      recording_status: 'none',
      seat: '',
      pronunciation_coverage: 'none',
      respelling: '',
    });
    // No cell of the file starts a formula.
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^\s*[=+\-@\t\r＝＋－＠]/u);
  });

  it('ZIP: the MP3s named <row>-<display name>.mp3, stored as they are, and the CSV, read back with yauzl', async () => {
    watched.maxOpen = 0;
    const { res, body } = await download(t, key, collectionId, 'zip');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="Class of 2027 _n_\.zip"; filename\*=UTF-8''/);
    const entries = await readZip(body);
    expect(entries.map((e) => e.name)).toEqual([
      '2-Ada Lovelace.mp3',
      '3-@SUM(A1 A9).mp3',
      '4-Siobhán Shiv Ní Bhriain.mp3',
      '6-Sam Lee.mp3',
      '7-Sam Lee.mp3',
      'people.csv',
    ]);
    for (const [index, entry] of [0, 1, 2, 4, 5].map((i, n) => [i, entries[n]!] as const)) {
      const row = await t.deps.db.kysely
        .selectFrom('recordings')
        .select('blob_key')
        .where('user_id', '=', users[index]!.id)
        .executeTakeFirstOrThrow();
      expect(entry.data.equals((await t.deps.blobs.get(row.blob_key)) as Buffer)).toBe(true);
      expect(entry.compressed).toBe(false);
    }
    const [header, ...rows] = csvRows(entries[5]!.data);
    // Where it was before the pronunciation columns were appended after it.
    const audioColumn = header!.length - 12;
    expect(header!.slice(audioColumn)).toEqual([
      'audio_file',
      'name_language',
      'pronunciation_coverage',
      'respelling',
      'ipa',
      'not_like',
      'pronunciation_approved_at',
      'preferred_name',
      'pronouns',
      'language',
      'invitation_status',
      'review_status',
    ]);
    expect(rows.map((r) => r[audioColumn])).toEqual([
      '2-Ada Lovelace.mp3',
      '3-@SUM(A1 A9).mp3',
      '4-Siobhán Shiv Ní Bhriain.mp3',
      '',
      '6-Sam Lee.mp3',
      '7-Sam Lee.mp3',
    ]);
    // The row in the file name is the row a spreadsheet shows (header = row 1).
    expect(rows[1]![3]).toBe('evil@example.com');
    expect(watched.maxOpen).toBeLessThanOrEqual(2);
  });

  it('keeps import order across pages and batches', async () => {
    const big = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Big' } })).json().id;
    const emails: string[] = [];
    for (const [batch, size] of [
      [0, 1000],
      [1, 120],
    ] as const) {
      const people = Array.from({ length: size }, (_, i) => ({
        email: `b${batch}-${i}@example.com`,
        first_name: 'P',
        last_name: `${i}`,
      }));
      emails.push(...people.map((p) => p.email));
      const res = await t.request({ method: 'POST', url: `/v1/collections/${big}/users/batch`, key, json: { users: people } });
      expect(res.statusCode).toBe(201);
    }
    const { body } = await download(t, key, big, 'csv');
    const [, ...rows] = csvRows(body);
    expect(rows.map((r) => r[3])).toEqual(emails);
  });

  it('refuses a missing or unknown format, and 404s other accounts, archived and unknown collections', async () => {
    const noFormat = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/export`, key });
    expect(noFormat.statusCode).toBe(400);
    expect(noFormat.json().error).toMatchObject({ code: 'parameter_missing', param: 'format' });
    const pdf = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/export?format=pdf`, key });
    expect(pdf.statusCode).toBe(400);
    expect(pdf.json().error).toMatchObject({ code: 'parameter_invalid', param: 'format' });

    const stranger = await t.newAccount();
    for (const format of ['csv', 'zip']) {
      const theirs = await download(t, stranger.key, collectionId, format);
      expect(theirs.res.status).toBe(404);
      expect(JSON.parse(theirs.body.toString()).error.code).toBe('resource_missing');
    }
    const archived = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Old' } })).json().id;
    await t.request({ method: 'DELETE', url: `/v1/collections/${archived}`, key });
    expect((await download(t, key, archived, 'zip')).res.status).toBe(404);
    expect((await download(t, key, '00000000-0000-4000-8000-000000000000', 'csv')).res.status).toBe(404);
  });

  describe('auth', () => {
    authContract(() => ({
      t,
      routes: [
        { method: 'GET', url: `/v1/collections/${collectionId}/export?format=csv`, owned: true },
        { method: 'GET', url: `/v1/collections/${collectionId}/export?format=zip`, owned: true },
      ],
    }));
  });
});

describe('a slow export', () => {
  let t: Server;
  let key: string;
  let collectionId: string;
  let watched: WatchedBlobStore;

  beforeAll(async () => {
    watched = watchedDiskStore();
    // The request budget is 1 s; the export below takes longer.
    t = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '1000' }, overrides: { blobs: watched } });
    ({ key } = await t.newAccount());
    let users;
    ({ collectionId, users } = await setUp(t, key));
    for (const user of users) await addRecording(t, user.id);
  });
  afterAll(async () => {
    // On Node 22 the server still counts the connection of the export the client abandoned
    // below (its response has closed), and a graceful close would wait for it for ever.
    t.app.server.closeAllConnections();
    await t.close();
  });

  it('is not cut off by REQUEST_TIMEOUT_MS while the client reads', async () => {
    watched.delayMs = 300;
    const started = Date.now();
    const { res, body } = await download(t, key, collectionId, 'zip');
    expect(Date.now() - started).toBeGreaterThan(1500);
    expect(res.status).toBe(200);
    expect((await readZip(body)).map((e) => e.name)).toHaveLength(PEOPLE.length + 1);
  });

  it('stops reading audio and removes its temporary file when the client goes away', async () => {
    watched.delayMs = 400;
    const openedBefore = watched.opened;
    const controller = new AbortController();
    const res = await fetch(exportUrl(t, collectionId, 'zip'), {
      headers: { authorization: `Bearer ${key}` },
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    // The audio under way is closed, and the one being fetched ahead is closed once it arrives.
    await within(5_000, async () => watched.open === 0 && watched.opening === 0);
    const openedAfterAbort = watched.opened - openedBefore;
    expect(openedAfterAbort).toBeLessThan(PEOPLE.length);
    // Real time on purpose: no further audio is opened in the time two more (400 ms) would take.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(watched.opened - openedBefore).toBe(openedAfterAbort);
    expect(watched.open).toBe(0);
    // Work folders live in this process's own temp folder (src/lib/process-temp.ts).
    const own = fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(ownerFolderPrefix(process.pid)));
    const leftovers = own.flatMap((folder) =>
      fs.readdirSync(path.join(os.tmpdir(), folder)).filter((name) => name.startsWith('export')),
    );
    expect(leftovers).toEqual([]);
  });
});

describe('export from S3', () => {
  let s3: TestS3;
  let t: Server;
  let key: string;

  beforeAll(async () => {
    s3 = await startTestS3();
    const store = new S3BlobStore({
      bucket: s3.bucket,
      endpoint: s3.endpoint,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    t = await startTestServer({ overrides: { blobs: new WatchedBlobStore(store) } });
    ({ key } = await t.newAccount());
  });
  afterAll(async () => {
    await t.close();
    await s3.close();
  });

  it('streams the MP3s from the bucket into a valid ZIP', async () => {
    const { collectionId, users } = await setUp(t, key);
    for (const user of users.slice(0, 3)) await addRecording(t, user.id, { text: user.display_name });
    const { res, body } = await download(t, key, collectionId, 'zip');
    expect(res.status).toBe(200);
    const entries = await readZip(body);
    expect(entries.map((e) => e.name)).toEqual([
      '2-Ada Lovelace.mp3',
      '3-@SUM(A1 A9).mp3',
      '4-Siobhán Shiv Ní Bhriain.mp3',
      'people.csv',
    ]);
    for (const entry of entries.slice(0, 3)) expect(entry.data.subarray(0, 3).toString('latin1')).toMatch(/^(ID3|\xFF)/);
  });
});
