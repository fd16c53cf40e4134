/**
 * What the ceremony reader gets from the server, through the real app and database: a rejected
 * recording is never played (the guide stands in, and the page says "No approved recording"),
 * with review required only approved recordings are, every playable audio carries the version
 * its kept copy is replaced by; the reader's web app manifest and service worker, per collection,
 * 404 for another account; signing out clears what the browser kept.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveGuide } from '../src/features/pronunciation/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { runJobsLater } from './helpers/jobs.js';

type Session = Browserish & { csrf: string };

let t: TestApp;
let organiser: Session;
let stranger: Session;
let key: string;
const ORGANISER = 'reader-organiser@example.com';

beforeAll(async () => {
  t = await createTestApp();
  organiser = await signIn(t, ORGANISER, '203.0.113.71');
  stranger = await signIn(t, 'reader-stranger@example.com', '203.0.113.72');
  ({ key } = await t.newAccount(ORGANISER));
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'PUT' | 'PATCH', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

async function collectionWith(name: string, reviewRequired: boolean, people: string[]) {
  const collection = await api('POST', '/v1/collections', { name, review_required: reviewRequired });
  expect(collection.statusCode, collection.body).toBe(201);
  const id = collection.json().id as string;
  const ids: Record<string, string> = {};
  for (const first of people) {
    const res = await api('POST', `/v1/collections/${id}/users`, {
      email: `${first.toLowerCase()}@example.com`,
      first_name: first,
      last_name: 'Reader',
    });
    expect(res.statusCode, res.body).toBe(201);
    ids[first] = res.json().id;
  }
  await runJobsLater(t.deps, 0);
  return { id, ids };
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

async function review(collectionId: string, userId: string, decision: 'approve' | 'request_rerecord') {
  const body = decision === 'approve' ? { decision } : { decision, note: 'That was not your name.' };
  const res = await api('POST', `/v1/collections/${collectionId}/users/${userId}/review`, body);
  expect(res.statusCode, res.body).toBe(200);
}

/** The person's own approval of their computer voice (on their record page: here through the service). */
async function approveVoice(collectionId: string, userId: string) {
  const user = (await api('GET', `/v1/collections/${collectionId}/users/${userId}`)).json();
  const { account_id } = await t.deps.db.kysely
    .selectFrom('collections')
    .select('account_id')
    .where('id', '=', collectionId)
    .executeTakeFirstOrThrow();
  await approveGuide(t.deps, { ...user, account_id, recording_status: user.recording_status });
}

const entryOf = (page: string, id: string) =>
  new RegExp(`<li class="person"[^>]*data-person-id="${id}"[^>]*>[\\s\\S]*?</li>`).exec(page)?.[0] ?? '';
const readerOf = (collectionId: string) => get(t, organiser, `/dashboard/collections/${collectionId}/reader`);

describe('what the reader plays', () => {
  it('skips a rejected recording: "No approved recording", the guide, its approved voice or else the labelled guess', async () => {
    const { id, ids } = await collectionWith('Rejections', false, ['Ada', 'Bo', 'Cy']);
    for (const person of ['Ada', 'Bo', 'Cy']) await record(id, ids[person] as string);
    await review(id, ids.Bo as string, 'request_rerecord');
    await review(id, ids.Cy as string, 'request_rerecord');
    await approveVoice(id, ids.Cy as string);
    const people = `/dashboard/collections/${id}/people`;

    const page = (await readerOf(id)).body;
    const ada = entryOf(page, ids.Ada as string);
    expect(ada).toContain(`data-audio="${people}/${ids.Ada}/audio" data-source="recording" data-version="`);
    expect(ada).not.toContain('No approved recording');

    const bo = entryOf(page, ids.Bo as string);
    expect(bo).not.toContain(`${ids.Bo}/audio`);
    expect(bo).toContain('No approved recording <span class="muted">(an organiser asked for a new one)</span>');
    expect(bo).toContain(`data-speak="${people}/${ids.Bo}/guide.mp3" data-source="unchecked_guess"`);
    expect(bo).toMatch(/<span class="ipa" lang="und-fonipa">\/[^<]+\/<\/span>/);
    expect(bo).toContain('>computer guess, not checked</span>');

    const cy = entryOf(page, ids.Cy as string);
    expect(cy).not.toContain(`${ids.Cy}/audio`);
    expect(cy).toContain('No approved recording');
    expect(cy).toMatch(/data-audio="\/pronunciations\/[A-Za-z0-9_-]+\.mp3" data-source="approved_voice"/);
    expect(cy).toContain('>computer voice, approved by them</span>');
    // Without JavaScript, the link plays the same.
    expect(bo).toContain(`<a href="${people}/${ids.Bo}/guide.mp3">Play</a>`);

    // A new take is played again (the organiser's request is answered).
    await record(id, ids.Bo as string);
    expect(entryOf((await readerOf(id)).body, ids.Bo as string)).toContain(`data-audio="${people}/${ids.Bo}/audio"`);
  });

  it('with review required, plays only approved recordings', async () => {
    const { id, ids } = await collectionWith('Reviewed', true, ['Dee', 'Eve', 'Fay']);
    for (const person of ['Dee', 'Eve', 'Fay']) await record(id, ids[person] as string);
    await review(id, ids.Dee as string, 'approve');
    await review(id, ids.Fay as string, 'request_rerecord');
    const page = (await readerOf(id)).body;
    expect(entryOf(page, ids.Dee as string)).toContain('data-source="recording"');
    const eve = entryOf(page, ids.Eve as string);
    expect(eve).not.toContain('data-source="recording"');
    expect(eve).toContain('No approved recording <span class="muted">(not reviewed yet)</span>');
    expect(entryOf(page, ids.Fay as string)).toContain('(an organiser asked for a new one)');
    await review(id, ids.Eve as string, 'approve');
    expect(entryOf((await readerOf(id)).body, ids.Eve as string)).toContain('data-source="recording"');
  });

  it("a new recording is a new version: the device's copy is replaced", async () => {
    const { id, ids } = await collectionWith('Versions', false, ['Gil']);
    await record(id, ids.Gil as string);
    const versionOf = async () => /data-version="([^"]+)"/.exec(entryOf((await readerOf(id)).body, ids.Gil as string))?.[1];
    const first = await versionOf();
    expect(first).toMatch(/^\d{4}-\d\d-\d\dT/);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await record(id, ids.Gil as string);
    expect(await versionOf()).not.toBe(first);
  });
});

describe('one page for every order', () => {
  it('every person carries their place in each order of the menu, as the server orders them; the page names its version', async () => {
    const collection = await api('POST', '/v1/collections', {
      name: 'Ranks',
      custom_fields: [{ key: 'seat', label: 'Seat', type: 'number', required: false }],
    });
    const id = collection.json().id as string;
    for (const [first, last, seat] of [
      ['Zoë', 'Adams', 10],
      ['émile', 'Zola', 2],
      ['Ana', 'Mbeki', undefined],
    ] as const) {
      const res = await api('POST', `/v1/collections/${id}/users`, {
        email: `${last.toLowerCase()}@example.com`,
        first_name: first,
        last_name: last,
        ...(seat === undefined ? {} : { custom_fields: { seat } }),
      });
      expect(res.statusCode, res.body).toBe(201);
    }
    const orders = ['import', 'display_name', 'last_name', 'custom:seat'];
    const readerIn = (order: string) =>
      get(t, organiser, `/dashboard/collections/${id}/reader?order=${encodeURIComponent(order)}`);
    const page = await readerIn('import');
    expect(page.body).toContain(
      `data-order="import" data-lineup="import" data-version="${page.headers['x-reader-page-version']}"`,
    );
    const ranks = new Map(
      [...page.body.matchAll(/data-person-id="([^"]+)" data-ranks="([^"]+)"/g)].map((m) => [
        m[1],
        (m[2] as string).split(' ').map(Number),
      ]),
    );
    expect(ranks.size).toBe(3);
    for (const [column, order] of orders.entries()) {
      const served = [...(await readerIn(order)).body.matchAll(/data-person-id="([^"]+)"/g)].map((m) => m[1]);
      const ranked = [...ranks].sort(([, a], [, b]) => (a[column] as number) - (b[column] as number)).map(([person]) => person);
      expect(ranked, order).toEqual(served);
    }
    // The seat's value, for the position line once the page is put in that order.
    expect(page.body).toMatch(/data-ranks="[^"]+" data-value-3="10"/);
  });
});

describe('installable and offline', () => {
  let collectionId: string;
  beforeAll(async () => {
    ({ id: collectionId } = await collectionWith('Class of 2027', false, ['Hal']));
  });

  it('the page links its manifest with the session and allows its manifest and worker, nothing more', async () => {
    const page = await readerOf(collectionId);
    expect(page.body).toContain(
      `<link rel="manifest" href="/dashboard/collections/${collectionId}/reader.webmanifest" crossorigin="use-credentials">`,
    );
    expect(page.body).toContain(`data-service-worker="/dashboard/collections/${collectionId}/reader-sw.js"`);
    const csp = page.headers['content-security-policy'] as string;
    expect(csp).toContain("manifest-src 'self'");
    expect(csp).toContain("worker-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('the manifest names the collection and keeps the app to its reader', async () => {
    const res = await get(t, organiser, `/dashboard/collections/${collectionId}/reader.webmanifest`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    const reader = `/dashboard/collections/${collectionId}/reader`;
    expect(res.json()).toMatchObject({ name: 'Reader · Class of 2027', start_url: reader, scope: reader, display: 'standalone' });
  });

  it("the service worker is the collection's own, with a policy that only lets it fetch from us", async () => {
    const res = await get(t, organiser, `/dashboard/collections/${collectionId}/reader-sw.js`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe("default-src 'none'; connect-src 'self'; frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('voicename-reader:');
  });

  it("another account's reader, manifest and worker are 404; without a session, the sign-in page", async () => {
    const base = `/dashboard/collections/${collectionId}`;
    for (const path of ['reader', 'reader.webmanifest', 'reader-sw.js']) {
      expect((await get(t, stranger, `${base}/${path}`)).statusCode, path).toBe(404);
      const anonymous = await t.app.inject({ method: 'GET', url: `${base}/${path}` });
      expect(anonymous.statusCode, path).toBe(303);
      expect(anonymous.headers.location).toBe('/dashboard/sign-in');
    }
  });

  it('signing out tells the browser to clear what it kept (caches, service workers)', async () => {
    const leaving = await signIn(t, ORGANISER, '203.0.113.73');
    const res = await post(t, leaving, '/dashboard/sign-out', { csrf: leaving.csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers['clear-site-data']).toBe('"cache", "storage"');
  });
});
