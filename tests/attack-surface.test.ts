/**
 * The standing attack suite: generated input thrown at every public write surface must never
 * get a 5xx, and every refusal must be in the documented envelope. With the agent API's own
 * fuzzing (entities-validation.test.ts, 3,000 cases) a run sends over 10,000 cases, on SQLite and
 * on PostgreSQL alike.
 */
import fs from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let t: TestApp;
let key: string;
let collectionId: string;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Fuzz', custom_fields: [{ key: 'seat', label: 'Seat', type: 'number', required: false }] },
  });
  collectionId = collection.json().id;
  const user = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: 'fuzz@example.com', first_name: 'Ana', last_name: 'Diaz' },
  });
  userId = user.json().id;
}, 60_000);
afterAll(() => t.close());

/** Strings that have broken services before: controls, surrogates, bidi, formula and SQL text. */
const nasty = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    '\ud800',
    'a\udfffb',
    '\u202e',
    '\u0085',
    '=cmd|"/c calc"!A1',
    "'; drop table users; --",
    '../../etc/passwd',
    '',
  ),
);
const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nasty,
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nasty, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** A body shaped like the endpoint's, with any field missing, mistyped or hostile; or anything at all. */
const bodyLike = (fields: string[]) =>
  fc.oneof(fc.dictionary(fc.constantFrom(...fields, 'extra'), jsonish, { maxKeys: fields.length + 1 }), jsonish);

async function neverFails(method: 'POST' | 'PATCH' | 'PUT', url: string, body: fc.Arbitrary<unknown>, numRuns: number) {
  await fc.assert(
    fc.asyncProperty(body, async (payload) => {
      const res = await t.request({ method, url, key, json: payload });
      expect(res.statusCode, `${method} ${url} ${JSON.stringify(payload)} → ${res.body}`).toBeLessThan(500);
      if (res.statusCode >= 400) expect(res.json().error.code).toEqual(expect.any(String));
    }),
    { numRuns },
  );
}

describe('/v1 bodies never get a 5xx', () => {
  it('collections', { timeout: 120_000 }, async () => {
    const fields = ['name', 'description', 'custom_fields'];
    await neverFails('POST', '/v1/collections', bodyLike(fields), 1000);
    await neverFails('PATCH', `/v1/collections/${collectionId}`, bodyLike(fields), 600);
  });

  it('users, one and batch', { timeout: 120_000 }, async () => {
    const fields = [
      'email',
      'first_name',
      'last_name',
      'display_name',
      'preferred_name',
      'pronouns',
      'external_id',
      'phonetic_spelling',
      'custom_fields',
    ];
    await neverFails('POST', `/v1/collections/${collectionId}/users`, bodyLike(fields), 1200);
    await neverFails('PATCH', `/v1/collections/${collectionId}/users/${userId}`, bodyLike(fields), 600);
    await neverFails(
      'POST',
      `/v1/collections/${collectionId}/users/batch`,
      fc.oneof(fc.record({ users: fc.array(bodyLike(fields), { maxLength: 5 }) }), jsonish),
      600,
    );
  });

  it('webhooks and play-link settings', { timeout: 120_000 }, async () => {
    await neverFails('POST', '/v1/webhooks', bodyLike(['url', 'events', 'description']), 900);
    await neverFails('PUT', `/v1/collections/${collectionId}/play-link-settings`, bodyLike(['allow_indexing']), 400);
  });

  it('query strings of every list', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(`/v1/collections`, `/v1/collections/${collectionId}/users`, '/v1/webhooks', '/v1/play-links/batch'),
        fc.dictionary(
          fc.constantFrom('limit', 'cursor', 'email', 'external_id', 'has_recording', 'collection_id', 'user_ids'),
          nasty,
        ),
        async (path, query) => {
          const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, v.replace(/[\ud800-\udfff]/g, '')]));
          const res = await t.request({ method: 'GET', url: `${path}?${search}`, key });
          expect(res.statusCode, `${path}?${search} → ${res.body}`).toBeLessThan(500);
        },
      ),
      { numRuns: 1200 },
    );
  });
});

describe('other surfaces never get a 5xx', () => {
  it('CSV imports', { timeout: 120_000 }, async () => {
    const cell = nasty.map((s) => s.replace(/[\ud800-\udfff]/g, ''));
    const csv = fc.oneof(
      fc
        .array(fc.array(cell, { maxLength: 5 }), { maxLength: 6 })
        .map((rows) =>
          ['email,first_name,last_name,seat', ...rows.map((row) => row.map((c) => JSON.stringify(c)).join(','))].join('\n'),
        ),
      fc.string({ maxLength: 300 }),
    );
    await fc.assert(
      fc.asyncProperty(csv, async (text) => {
        const res = await t.request({
          method: 'POST',
          url: `/v1/collections/${collectionId}/users/batch`,
          key,
          headers: { 'content-type': 'text/csv' },
          payload: text,
        });
        expect(res.statusCode, `${JSON.stringify(text)} → ${res.body}`).toBeLessThan(500);
      }),
      { numRuns: 800 },
    );
  });

  it('CSV imports: any bytes, any headings, either mode', { timeout: 120_000 }, async () => {
    const heading = fc.oneof(fc.constantFrom('E-mail', 'First Name', 'surname', 'Seat', 'pronouns', 'external_id', ''), nasty);
    const cell = nasty.map((s) => s.replace(/[\ud800-\udfff]/g, ''));
    const file = fc.oneof(
      fc
        .tuple(
          fc.array(heading, { minLength: 1, maxLength: 5 }),
          fc.array(fc.array(cell, { maxLength: 6 }), { maxLength: 6 }),
          fc.constantFrom(',', ';', '\t'),
        )
        .map(([header, rows, sep]) =>
          Buffer.from([header, ...rows].map((row) => row.map((c) => JSON.stringify(c)).join(sep)).join('\r\n'), 'utf8'),
        ),
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    );
    const query = fc.constantFrom('', '?mode=valid_rows', '?dry_run=true', '?mode=valid_rows&dry_run=1', '?mode=x');
    await fc.assert(
      fc.asyncProperty(file, query, async (body, q) => {
        const res = await t.request({
          method: 'POST',
          url: `/v1/collections/${collectionId}/users/import${q}`,
          key,
          headers: { 'content-type': 'text/csv' },
          payload: body,
        });
        expect(res.statusCode, `${JSON.stringify(body.toString('latin1'))} → ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) expect(res.json().error.request_id).toBe(res.headers['x-request-id']);
      }),
      { numRuns: 800 },
    );
  });

  it('audio uploads: real recordings with bytes flipped, cut or spliced', { timeout: 180_000 }, async () => {
    const wav = fs.readFileSync(speechWav());
    const mutation = fc.record({
      cut: fc.integer({ min: 0, max: wav.length }),
      flips: fc.array(fc.record({ at: fc.integer({ min: 0, max: wav.length - 1 }), byte: fc.integer({ min: 0, max: 255 }) }), {
        maxLength: 8,
      }),
      header: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(mutation, async ({ cut, flips, header }) => {
        const body = Buffer.from(wav.subarray(0, Math.max(cut, 12)));
        // Mostly the header (where the format is declared), sometimes anywhere.
        for (const { at, byte } of flips) body[header ? at % 64 : at % body.length] = byte;
        const res = await t.request({
          method: 'PUT',
          url: `/v1/collections/${collectionId}/users/${userId}/recording`,
          key,
          headers: { 'content-type': 'application/octet-stream' },
          payload: body,
        });
        expect(res.statusCode, res.body).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
  });

  it('dashboard sign-in form', { timeout: 120_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('email', 'csrf', 'extra'), nasty, { maxKeys: 3 }), async (fields) => {
        const form = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, v.replace(/[\ud800-\udfff]/g, '')]));
        const res = await t.app.inject({
          method: 'POST',
          url: '/dashboard/sign-in',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: form.toString(),
        });
        expect(res.statusCode, `${form} → ${res.statusCode}`).toBeLessThan(500);
      }),
      { numRuns: 400 },
    );
  });
});
