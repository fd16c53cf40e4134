/**
 * The dashboard's upload form (`multipart/form-data`: the import and the logo) is bounded as a
 * whole body, not part by part, and a form that cannot be read is a 400 page, never a 500. These
 * are the behaviours that keep the hand-written reader (see "Multipart forms" in ARCHITECTURE.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, cookieHeader, signIn } from './helpers/dashboard.js';

const MB = 1024 * 1024;
const BOUNDARY = '----voicenameFormBoundary';
const OWNER = 'upload-form-owner@example.com';

let t: TestApp;
let owner: Browserish & { csrf: string };
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signIn(t, OWNER, '203.0.113.61');
  const { key } = await t.newAccount(OWNER);
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class' } })).json().id;
});
afterAll(() => t.close());

const field = (name: string, value: string) =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;

const sendForm = (path: string, payload: string) =>
  t.app.inject({
    method: 'POST',
    url: `/dashboard/collections/${collectionId}/${path}`,
    remoteAddress: owner.ip,
    headers: { cookie: cookieHeader(owner), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
    payload,
  });

describe('the dashboard upload form', () => {
  it('answers 413 to a form over 5 MB + 64 KiB in total, even when each part is smaller', async () => {
    const parts = field('csrf', owner.csrf) + field('a', 'x'.repeat(3 * MB)) + field('b', 'y'.repeat(3 * MB));
    for (const path of ['import', 'logo']) {
      const res = await sendForm(path, `${parts}--${BOUNDARY}--\r\n`);
      expect(res.statusCode).toBe(413);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('The request body is too large.');
    }
  });

  it('answers the 400 page, never a 500, to a form it cannot read', async () => {
    for (const payload of [
      `${field('csrf', owner.csrf)}--${BOUNDARY}\r\nX-Part: no name\r\n\r\nv\r\n--${BOUNDARY}--\r\n`,
      `${field('csrf', owner.csrf)}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ncut off`,
      `${Array.from({ length: 21 }, (_, i) => field(`f${i}`, 'v')).join('')}--${BOUNDARY}--\r\n`,
      'no boundary at all',
    ]) {
      const res = await sendForm('import', payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('The form could not be read');
    }
  });

  it('refuses a text field that breaks the text rule, naming it', async () => {
    const res = await sendForm('import', `${field('csrf', owner.csrf)}${field('mode', 'a\u0000b')}--${BOUNDARY}--\r\n`);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('The field &quot;mode&quot;');
  });
});
