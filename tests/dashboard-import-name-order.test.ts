/**
 * The dashboard's import with family-name-first names: the upload form offers the name order,
 * the preview counts names that look family-name-first (Han, Kana, Hangul, or a zh/ja/ko/hu/vi
 * name language) when they would be shown given name first and offers a check with the family
 * name first, which the confirmation then imports.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, cookieHeader, get, post, signIn } from './helpers/dashboard.js';

const BOUNDARY = '----voicenameNameOrderBoundary';
const OWNER = 'name-order-owner@example.com';

let t: TestApp;
let owner: Browserish & { csrf: string };
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.62');
  ({ key } = await t.newAccount(OWNER));
});
afterAll(() => t.close());

const newCollection = async () =>
  (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class' } })).json().id as string;

/** The upload form as a browser sends it: the file and the form's text fields. */
function upload(collectionId: string, csv: string, fields: Record<string, string> = {}) {
  const field = (name: string, value: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const payload = Buffer.concat([
    Buffer.from(
      Object.entries({ csrf: owner.csrf, ...fields })
        .map(([name, value]) => field(name, value))
        .join(''),
    ),
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="class.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    Buffer.from(csv),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
  return t.app.inject({
    method: 'POST',
    url: `/dashboard/collections/${collectionId}/import`,
    remoteAddress: owner.ip,
    headers: { cookie: cookieHeader(owner), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload,
  });
}
const hidden = (page: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? '';
const displayNames = async (collectionId: string) =>
  (
    (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users`, key })).json().data as {
      display_name: string;
    }[]
  )
    .map((p) => p.display_name)
    .sort();

const CJK = [
  'email,first_name,last_name',
  'wei@example.com,伟,张',
  'minjun@example.com,민준,김',
  'ada@example.com,Ada,Lovelace',
].join('\n');

describe('name order in the dashboard import', () => {
  it('the upload form offers the name order with a line saying what it is for', async () => {
    const res = await get(t, owner, `/dashboard/collections/${await newCollection()}/import`);
    expect(res.body).toContain('<legend>Name order</legend>');
    expect(res.body).toMatch(/name="name_order" value="given_first" id="name-order-given" checked/);
    expect(res.body).toContain('Family name first');
    expect(res.body).toContain('said family name first (Chinese, Japanese, Korean, Hungarian, Vietnamese)');
    expect(res.body).toContain('<code>name_order</code>');
  });

  it('the preview of a CJK file counts its names and offers the family-first check; a Latin file gets no hint', async () => {
    const id = await newCollection();
    const preview = await upload(id, CJK);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.body).toContain('id="import-name-order-hint"');
    expect(preview.body).toContain('2 names look family name first');
    expect(preview.body).toContain('伟 张');
    expect(preview.body).toContain('Check again with the family name first');

    const latin = await upload(id, 'email,first_name,last_name\nada@example.com,Ada,Lovelace\n');
    expect(latin.statusCode).toBe(200);
    expect(latin.body).not.toContain('import-name-order-hint');
  });

  it('the family-first check previews 张伟 and the confirmation imports it that way', async () => {
    const id = await newCollection();
    const preview = await upload(id, CJK);
    const rechecked = await post(t, owner, `/dashboard/collections/${id}/import/recheck`, {
      csrf: owner.csrf,
      upload: hidden(preview.body, 'upload'),
      file_name: 'class.csv',
      name_order: 'family_first',
    });
    expect(rechecked.statusCode, rechecked.body).toBe(200);
    expect(rechecked.body).not.toContain('import-name-order-hint');
    expect(rechecked.body).toContain('<strong>family name first</strong>');
    expect(rechecked.body).toContain('张伟');
    expect(rechecked.body).toContain('<strong>class.csv</strong>');
    expect(hidden(rechecked.body, 'name_order')).toBe('family_first');

    const done = await post(t, owner, `/dashboard/collections/${id}/import/confirm`, {
      csrf: owner.csrf,
      upload: hidden(rechecked.body, 'upload'),
      mode: 'all_or_nothing',
      name_order: hidden(rechecked.body, 'name_order'),
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(await displayNames(id)).toEqual(['Lovelace Ada', '张伟', '김민준']);
  });

  it('the upload form’s family-first choice imports family first directly; a made-up order is a 400 page', async () => {
    const id = await newCollection();
    const preview = await upload(id, CJK, { name_order: 'family_first' });
    expect(preview.statusCode).toBe(200);
    expect(preview.body).not.toContain('import-name-order-hint');
    const done = await post(t, owner, `/dashboard/collections/${id}/import/confirm`, {
      csrf: owner.csrf,
      upload: hidden(preview.body, 'upload'),
      mode: 'all_or_nothing',
      name_order: hidden(preview.body, 'name_order'),
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(await displayNames(id)).toEqual(['Lovelace Ada', '张伟', '김민준']);

    const bad = await upload(id, CJK, { name_order: 'surname_first' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Choose given name first or family name first.');
  });

  it('a re-check of an expired or unknown file asks for the file again', async () => {
    const id = await newCollection();
    const res = await post(t, owner, `/dashboard/collections/${id}/import/recheck`, {
      csrf: owner.csrf,
      upload: 'x'.repeat(43),
      name_order: 'family_first',
    });
    expect(res.statusCode).toBe(410);
    expect(res.body).toContain('Upload the file again.');
  });
});
