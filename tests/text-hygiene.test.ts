/**
 * The shared text rule and the JSON nesting limit on every surface that takes text: the /v1
 * write endpoints (JSON bodies, query strings, CSV cells), the dashboard's forms and the agent
 * API. Refused text is a 400 naming the field, and nothing is stored; names are kept in NFC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../src/lib/json-depth.js';
import { SAFE_MULTILINE_TEXT_PATTERN, SAFE_TEXT_PATTERN } from '../src/lib/text.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { post as postForm, signIn } from './helpers/dashboard.js';
import { generate, publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp;
let key: string;
let collectionId: string;
let userId: string;
let webhookId: string;

const BAD: [string, string][] = [
  ['NUL', 'a\u0000b'],
  ['a lone surrogate', 'a\ud800b'],
  ['U+202E', 'a\u202eb'],
  ['a C1 control', 'a\u0085b'],
];
const DECOMPOSED = 'Rene\u0301e';
const COMPOSED = 'Ren\u00e9e';

beforeAll(async () => {
  t = await createTestApp({
    env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
    overrides: fakeSpeech(),
  });
  ({ key } = await t.newAccount());
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Base', custom_fields: [{ key: 'team', label: 'Team', type: 'text' }] },
  });
  collectionId = collection.json().id;
  const user = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: 'base@example.com', first_name: 'Base', last_name: 'User' },
  });
  userId = user.json().id;
  const hook = await t.request({
    method: 'POST',
    url: '/v1/webhooks',
    key,
    json: { url: 'https://hooks.example.com/x', events: ['*'] },
  });
  webhookId = hook.json().id;
});
afterAll(() => t.close());

/** Rows of every table a /v1 write can touch, to prove a refused request stored nothing. */
async function snapshot() {
  const db = t.deps.db.kysely;
  return JSON.stringify([
    await db.selectFrom('collections').selectAll().orderBy('id').execute(),
    await db.selectFrom('users').selectAll().orderBy('id').execute(),
    await db.selectFrom('webhooks').select(['id', 'url', 'events', 'description']).orderBy('id').execute(),
  ]);
}

interface Case {
  name: string;
  param: string;
  query?: true;
  request: (bad: string) => { method: 'POST' | 'PATCH' | 'GET'; url: string; json?: unknown };
}

const user = (extra: Record<string, unknown>) => ({ email: 'x@example.com', first_name: 'X', last_name: 'Y', ...extra });

const CASES: Case[] = [
  {
    name: 'create collection: name',
    param: 'name',
    request: (bad) => ({ method: 'POST', url: '/v1/collections', json: { name: bad } }),
  },
  {
    name: 'create collection: description',
    param: 'description',
    request: (bad) => ({ method: 'POST', url: '/v1/collections', json: { name: 'ok', description: bad } }),
  },
  {
    name: 'create collection: custom field label',
    param: 'custom_fields[0].label',
    request: (bad) => ({
      method: 'POST',
      url: '/v1/collections',
      json: { name: 'ok', custom_fields: [{ key: 'k', label: bad, type: 'text' }] },
    }),
  },
  {
    name: 'update collection: name',
    param: 'name',
    request: (bad) => ({ method: 'PATCH', url: `/v1/collections/${collectionId}`, json: { name: bad } }),
  },
  ...(['first_name', 'last_name', 'display_name', 'external_id', 'phonetic_spelling'] as const).flatMap((field): Case[] => [
    {
      name: `create user: ${field}`,
      param: field,
      request: (bad) => ({ method: 'POST', url: `/v1/collections/${collectionId}/users`, json: user({ [field]: bad }) }),
    },
    {
      name: `update user: ${field}`,
      param: field,
      request: (bad) => ({ method: 'PATCH', url: `/v1/collections/${collectionId}/users/${userId}`, json: { [field]: bad } }),
    },
  ]),
  {
    name: 'create user: custom field value',
    param: 'custom_fields.team',
    request: (bad) => ({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users`,
      json: user({ custom_fields: { team: bad } }),
    }),
  },
  {
    name: 'create webhook: description',
    param: 'description',
    request: (bad) => ({
      method: 'POST',
      url: '/v1/webhooks',
      json: { url: 'https://hooks.example.com/y', events: ['*'], description: bad },
    }),
  },
  {
    name: 'create webhook: url',
    param: 'url',
    request: (bad) => ({ method: 'POST', url: '/v1/webhooks', json: { url: `https://hooks.example.com/${bad}`, events: ['*'] } }),
  },
  {
    name: 'update webhook: description',
    param: 'description',
    request: (bad) => ({ method: 'PATCH', url: `/v1/webhooks/${webhookId}`, json: { description: bad } }),
  },
  {
    name: 'list users: external_id query',
    param: 'external_id',
    query: true,
    request: (bad) => ({
      method: 'GET',
      url: `/v1/collections/${collectionId}/users?external_id=${encodeURIComponent(bad)}`,
    }),
  },
];

describe('/v1: refused text', () => {
  for (const testCase of CASES) {
    for (const [what, bad] of BAD) {
      // A lone surrogate cannot travel in a URL (percent-decoding makes it U+FFFD), so query cases skip it.
      if (testCase.query && what === 'a lone surrogate') continue;
      it(`${testCase.name} with ${what}: 400 parameter_invalid, nothing stored`, async () => {
        const before = await snapshot();
        const res = await t.request({ key, ...testCase.request(bad), headers: { 'idempotency-key': `k-${Math.random()}` } });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: testCase.param });
        expect(await snapshot()).toBe(before);
      });
    }
  }

  it('a batch (JSON and CSV) with refused text in one row creates nobody and names the row and field', async () => {
    for (const [what, bad] of BAD) {
      const before = await snapshot();
      const json = await t.request({
        method: 'POST',
        url: `/v1/collections/${collectionId}/users/batch`,
        key,
        json: { users: [user({ email: 'b1@example.com' }), user({ email: 'b2@example.com', last_name: bad })] },
      });
      expect(json.statusCode, json.body).toBe(400);
      expect(json.json().error.errors).toEqual([
        expect.objectContaining({ index: 1, field: 'last_name', code: 'parameter_invalid' }),
      ]);
      // UTF-8 cannot carry a lone surrogate (it arrives as U+FFFD), so CSV and forms skip it.
      if (what === 'a lone surrogate') continue;
      const csv = await t.request({
        method: 'POST',
        url: `/v1/collections/${collectionId}/users/batch`,
        key,
        headers: { 'content-type': 'text/csv' },
        payload: `email,first_name,last_name,team\nc1@example.com,A,B,x\nc2@example.com,A,B,"${bad}"\n`,
      });
      expect(csv.statusCode, csv.body).toBe(400);
      expect(csv.json().error.errors).toEqual([
        expect.objectContaining({ index: 1, field: 'custom_fields.team', code: 'parameter_invalid' }),
      ]);
      expect(await snapshot()).toBe(before);
    }
  });

  it('keeps tab and line breaks in descriptions, refuses them in names', async () => {
    const ok = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      json: { name: 'Multi', description: 'a\tb\r\nc' },
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().description).toBe('a\tb\r\nc');
    const bad = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'a\nb' } });
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
  });

  it('stores names in NFC: a decomposed "é" is stored composed', async () => {
    const collection = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: DECOMPOSED } });
    expect(collection.json().name).toBe(COMPOSED);
    const id = collection.json().id;
    const row = await t.deps.db.kysely.selectFrom('collections').select('name').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.name).toBe(COMPOSED);
    const created = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'nfc@example.com', first_name: DECOMPOSED, last_name: DECOMPOSED },
    });
    expect(created.json()).toMatchObject({ first_name: COMPOSED, last_name: COMPOSED, display_name: `${COMPOSED} ${COMPOSED}` });
    const csv = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users/batch`,
      key,
      headers: { 'content-type': 'text/csv' },
      payload: `email,first_name,last_name,display_name\nnfc2@example.com,${DECOMPOSED},B,${DECOMPOSED}\n`,
    });
    expect(csv.json().data[0]).toMatchObject({ first_name: COMPOSED, display_name: COMPOSED });
    const stored = await t.deps.db.kysely
      .selectFrom('users')
      .select(['first_name', 'display_name'])
      .where('collection_id', '=', id)
      .execute();
    for (const r of stored) expect(r.first_name).toBe(COMPOSED);
  });
});

describe('dashboard forms', () => {
  it('refuse a field with refused text (400), creating nothing', async () => {
    const browser = await signIn(t, 'hygiene@example.com');
    for (const [, bad] of BAD.filter(([what]) => what !== 'a lone surrogate')) {
      const before = await t.deps.db.kysely.selectFrom('api_keys').select('id').execute();
      const res = await postForm(t, browser, '/dashboard/api-keys', { csrf: browser.csrf, name: bad });
      expect(res.statusCode).toBe(400);
      expect((await t.deps.db.kysely.selectFrom('api_keys').select('id').execute()).length).toBe(before.length);
    }
  });
});

describe('agent API: refused text', () => {
  const schema_url = 'http://localhost:3000/schemas/entity-generation.schema.json';
  for (const field of ['name', 'description', 'operator', 'intro', 'agent_id', 'external_metadata'] as const) {
    for (const [what, bad] of BAD) {
      it(`${field} with ${what}: the spec's 400 (before any 402), naming the field`, async () => {
        const value =
          field === 'external_metadata' ? { nested: { note: bad } } : field === 'description' ? `long enough ${bad}` : bad;
        const res = await generate(t, validBody({ [field]: value }));
        expect(res.statusCode, res.body).toBe(400);
        const body = res.json();
        expect(body).toMatchObject({ status: 'invalid_request', missing: [], schema_url });
        expect(body.invalid.map((i: { field: string }) => i.field)).toEqual([field]);
        expect(body.invalid[0].allowed[0]).toContain('control characters');
        expect(
          await t.deps.db.kysely.selectFrom('sandbox_payment_intents').select('id').where('id', 'is not', null).execute(),
        ).toEqual(intentsBefore);
      });
    }
  }
  let intentsBefore: { id: string }[] = [];
  beforeAll(async () => {
    intentsBefore = await t.deps.db.kysely.selectFrom('sandbox_payment_intents').select('id').execute();
  });

  it('the published schema carries the rule as standard patterns, and says names are stored in NFC', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/schemas/entity-generation.schema.json' });
    const { properties, $comment } = res.json();
    expect(properties.name).toMatchObject({ pattern: SAFE_TEXT_PATTERN });
    expect(properties.name.description).toContain('NFC');
    expect($comment).toContain('NFC');
    expect(properties.description.pattern).toBe(SAFE_MULTILINE_TEXT_PATTERN);
  });

  it('stores an entity name in NFC', async () => {
    const name = `${DECOMPOSED} Bot ${Date.now()}`;
    const { paid } = await publishEntity(t, validBody({ name }));
    expect(paid.statusCode, paid.body).toBe(200);
    expect(paid.json().entity.name).toBe(name.normalize('NFC'));
    const row = await t.deps.db.kysely.selectFrom('entities').select('name').where('name', '=', name.normalize('NFC')).execute();
    expect(row).toHaveLength(1);
  });
});

describe('JSON nesting limit', () => {
  const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);
  const deepObject = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

  it('a 10,000-level body to /v1 (with an Idempotency-Key) is a 400 invalid_json, not a 500', async () => {
    for (const payload of [
      nested(10_000),
      `{"name":"deep","description":${deepObject(10_000)}}`,
      `{"users":[${deepObject(10_000)}]}`,
    ]) {
      const before = await snapshot();
      const res = await t.request({
        method: 'POST',
        url: payload.startsWith('{"users"') ? `/v1/collections/${collectionId}/users/batch` : '/v1/collections',
        key,
        headers: { 'content-type': 'application/json', 'idempotency-key': `deep-${Math.random()}` },
        payload,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_json', type: 'invalid_request_error' });
      expect(res.json().error.message).toContain(String(MAX_JSON_DEPTH));
      expect(await snapshot()).toBe(before);
    }
  });

  it(`accepts ${MAX_JSON_DEPTH} levels (then the schema decides)`, async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'depth-ok' },
      payload: `{"name":"x","description":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'description' });
  });

  it('a 10,000-level body or external_metadata to the agent API is its own 400, not a 500', async () => {
    const body = JSON.stringify(validBody({ external_metadata: { placeholder: true } }));
    for (const payload of [nested(10_000), body.replace('{"placeholder":true}', deepObject(10_000))]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/entities/generate',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        status: 'invalid_request',
        missing: [],
        invalid: [{ field: 'body', received: 'JSON nested too deeply' }],
        schema_url,
      });
    }
  });
  const schema_url = 'http://localhost:3000/schemas/entity-generation.schema.json';
});
