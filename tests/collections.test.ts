import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { authContract } from './helpers/auth-contract.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

const create = (json: unknown, k = key) => t.request({ method: 'POST', url: '/v1/collections', key: k, json });

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('POST /v1/collections', () => {
  it('creates a collection with exactly the spec fields and defaults', async () => {
    const res = await create({ name: 'Class of 2027' });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'created_at',
        'custom_fields',
        'description',
        'id',
        'member_count',
        'name',
        'recorded_count',
        'review_required',
        'updated_at',
        'deadline',
        'language',
        'self_edit',
        'branding',
        'invitation_settings',
      ].sort(),
    );
    expect(body).toMatchObject({
      name: 'Class of 2027',
      description: null,
      custom_fields: [],
      review_required: false,
      member_count: 0,
      recorded_count: 0,
    });
    expect(body.id).toMatch(UUID);
    expect(body.created_at).toMatch(ISO);
    expect(body.updated_at).toBe(body.created_at);
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('accepts a name of 255 characters and refuses 256', async () => {
    expect((await create({ name: 'n'.repeat(255) })).statusCode).toBe(201);
    const res = await create({ name: 'n'.repeat(256) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'name', type: 'invalid_request_error' });
    expect(res.json().error.message).toContain('255');
  });

  it('counts characters, not bytes: 255 multi-byte characters are fine', async () => {
    const res = await create({ name: 'é'.repeat(255) });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe('é'.repeat(255));
  });

  it('requires a non-blank name', async () => {
    expect((await create({})).json().error).toMatchObject({ code: 'parameter_missing', param: 'name' });
    expect((await create({ name: '' })).json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    expect((await create({ name: '   ' })).json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    expect((await create({ name: 42 })).json().error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
  });

  it('rejects unknown fields by name', async () => {
    const res = await create({ name: 'x', colour: 'red' });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('stores a description and custom field definitions', async () => {
    const custom_fields = [
      { key: 'student_id', label: 'Student ID', type: 'text', required: true },
      { key: 'house', label: 'House', type: 'select', options: ['Red', 'Blue'] },
    ];
    const res = await create({ name: 'x', description: 'Graduation', custom_fields });
    expect(res.statusCode).toBe(201);
    expect(res.json().description).toBe('Graduation');
    expect(res.json().custom_fields).toEqual([
      { key: 'student_id', label: 'Student ID', type: 'text', required: true },
      { key: 'house', label: 'House', type: 'select', required: false, options: ['Red', 'Blue'] },
    ]);
  });

  it.each([
    [[{ key: 'Bad Key', label: 'x', type: 'text' }], 'custom_fields[0].key'],
    [[{ key: 'a', label: 'x', type: 'colour' }], 'custom_fields[0].type'],
    [[{ key: 'a', label: 'x', type: 'select' }], 'custom_fields[0].options'],
    [[{ key: 'a', label: 'x', type: 'text', options: ['y'] }], 'custom_fields[0].options'],
    [
      [
        { key: 'a', label: 'A', type: 'text' },
        { key: 'a', label: 'B', type: 'text' },
      ],
      'custom_fields[1].key',
    ],
    [[{ key: 'a', label: 'x', type: 'text', extra: 1 }], 'custom_fields[0].extra'],
    [[{ key: 'a', type: 'text' }], 'custom_fields[0].label'],
  ])('rejects invalid custom fields %j', async (custom_fields, param) => {
    const res = await create({ name: 'x', custom_fields });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe(param);
  });

  it('allows 50 custom fields and refuses 51', async () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `f${i}`, label: `F${i}`, type: 'text' }));
    expect((await create({ name: 'x', custom_fields: fields(50) })).statusCode).toBe(201);
    const res = await create({ name: 'x', custom_fields: fields(51) });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.param).toBe('custom_fields');
  });

  it('answers bad JSON and wrong content types in the error envelope', async () => {
    const badJson = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.code).toBe('invalid_json');
    const text = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().error.code).toBe('unsupported_media_type');
  });

  it('caps the request body size (413)', async () => {
    const res = await create({ name: 'x', description: 'd'.repeat(t.config.jsonBodyLimit) });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('payload_too_large');
  });
});

describe('GET/PATCH/DELETE /v1/collections/:id', () => {
  it('fetches, updates and archives a collection', async () => {
    const created = (await create({ name: 'Before', description: 'd' })).json();
    const fetched = await t.request({ method: 'GET', url: `/v1/collections/${created.id}`, key });
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(created);

    const patched = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${created.id}`,
      key,
      json: { name: 'After', description: null },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: created.id, name: 'After', description: null, created_at: created.created_at });
    expect(patched.json().updated_at > created.updated_at).toBe(true);

    const onlyName = await t.request({ method: 'PATCH', url: `/v1/collections/${created.id}`, key, json: { name: 'Again' } });
    expect(onlyName.json()).toMatchObject({ name: 'Again', description: null });

    const deleted = await t.request({ method: 'DELETE', url: `/v1/collections/${created.id}`, key });
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ deleted: true, id: created.id });

    // Archived: gone from the API, but the row is kept with archived_at set.
    expect((await t.request({ method: 'GET', url: `/v1/collections/${created.id}`, key })).statusCode).toBe(404);
    expect(
      (await t.request({ method: 'PATCH', url: `/v1/collections/${created.id}`, key, json: { name: 'x' } })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/collections/${created.id}`, key })).statusCode).toBe(404);
    const row = await t.deps.db.kysely
      .selectFrom('collections')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.name).toBe('Again');
    expect(row.archived_at).not.toBeNull();
  });

  it('PATCH validates like POST and refuses a null name', async () => {
    const created = (await create({ name: 'x' })).json();
    const url = `/v1/collections/${created.id}`;
    expect((await t.request({ method: 'PATCH', url, key, json: { name: 'n'.repeat(256) } })).statusCode).toBe(400);
    expect((await t.request({ method: 'PATCH', url, key, json: { name: null } })).statusCode).toBe(400);
    expect((await t.request({ method: 'PATCH', url, key, json: { custom_fields: null } })).json().error).toMatchObject({
      code: 'parameter_invalid',
      param: 'custom_fields',
    });
    expect((await t.request({ method: 'PATCH', url, key, json: { members: 1 } })).json().error.code).toBe('parameter_unknown');
  });

  it.each(['not-a-uuid', '00000000-0000-4000-8000-000000000000', "1' or '1'='1", 'a'.repeat(64)])(
    'answers 404, never 500, for the id %s',
    async (id) => {
      const res = await t.request({ method: 'GET', url: `/v1/collections/${encodeURIComponent(id)}`, key });
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('resource_missing');
    },
  );
});

describe('editing custom fields after creation (PATCH custom_fields)', () => {
  const seat = { key: 'seat', label: 'Seat', type: 'number', required: false };
  const house = { key: 'house', label: 'House', type: 'select', required: false, options: ['Red', 'Blue'] };
  const diet = { key: 'diet', label: 'Diet', type: 'text', required: false };

  async function setUp() {
    const collection = (await create({ name: 'Fields', custom_fields: [seat, house, diet] })).json();
    const users = `/v1/collections/${collection.id}/users`;
    const person = async (email: string, custom_fields: Record<string, unknown>) =>
      (await t.request({ method: 'POST', url: users, key, json: { email, first_name: 'P', custom_fields } })).json();
    const a = await person(`a-${collection.id}@example.com`, { seat: 1, house: 'Red', diet: 'vegan' });
    const b = await person(`b-${collection.id}@example.com`, { seat: 2 });
    const patch = (json: unknown) => t.request({ method: 'PATCH', url: `/v1/collections/${collection.id}`, key, json });
    const user = async (id: string) => (await t.request({ method: 'GET', url: `${users}/${id}`, key })).json();
    return { collection, users, a, b, patch, user };
  }

  it('adds, relabels and removes fields: remaining values are kept, removed ones are deleted', async () => {
    const { collection, a, b, patch, user } = await setUp();
    const other = await setUp(); // another collection with the same keys is not touched
    const res = await patch({
      custom_fields: [
        { ...seat, label: 'Seat number', required: true },
        { ...house, options: ['Red', 'Blue', 'Green'] },
        { key: 'badge', label: 'Badge name', type: 'text' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().custom_fields).toEqual([
      { ...seat, label: 'Seat number', required: true },
      { ...house, options: ['Red', 'Blue', 'Green'] },
      { key: 'badge', label: 'Badge name', type: 'text', required: false },
    ]);
    expect(res.json().updated_at > collection.updated_at).toBe(true);
    expect((await user(a.id)).custom_fields).toEqual({ seat: 1, house: 'Red' });
    expect((await user(a.id)).updated_at > a.updated_at).toBe(true);
    expect((await user(b.id)).custom_fields).toEqual({ seat: 2 });
    expect((await user(b.id)).updated_at).toBe(b.updated_at);
    expect((await other.user(other.a.id)).custom_fields).toEqual({ seat: 1, house: 'Red', diet: 'vegan' });
    // Adding the removed key again does not bring its old values back.
    expect((await patch({ custom_fields: [seat, house, diet] })).statusCode).toBe(200);
    expect((await user(a.id)).custom_fields).toEqual({ seat: 1, house: 'Red' });
    expect((await t.request({ method: 'GET', url: `/v1/collections/${collection.id}`, key })).json().custom_fields).toHaveLength(
      3,
    );
  });

  it('removing every field deletes every value; name and custom_fields change together', async () => {
    const { a, patch, user } = await setUp();
    const res = await patch({ name: 'Renamed', custom_fields: [] });
    expect(res.json()).toMatchObject({ name: 'Renamed', custom_fields: [] });
    expect((await user(a.id)).custom_fields).toEqual({});
  });

  it('refuses a type change, duplicate keys, select without options and more than 50 fields, changing nothing', async () => {
    const { a, patch, user } = await setUp();
    const typeChange = await patch({ custom_fields: [{ ...seat, type: 'text' }] });
    expect(typeChange.statusCode).toBe(400);
    expect(typeChange.json().error).toMatchObject({ code: 'parameter_invalid', param: 'custom_fields[0].type' });
    expect((await user(a.id)).custom_fields).toEqual({ seat: 1, house: 'Red', diet: 'vegan' });
    expect((await patch({ custom_fields: [seat, seat] })).json().error.param).toBe('custom_fields[1].key');
    expect((await patch({ custom_fields: [{ ...house, options: undefined }] })).json().error.param).toBe(
      'custom_fields[0].options',
    );
    const many = Array.from({ length: 51 }, (_, i) => ({ key: `f${i}`, label: `F${i}`, type: 'text' }));
    expect((await patch({ custom_fields: many })).json().error.param).toBe('custom_fields');
    expect((await patch({ custom_fields: many.slice(0, 50) })).statusCode).toBe(200);
    // The 50-field list removed seat, house and diet.
    expect((await user(a.id)).custom_fields).toEqual({});
  });

  it('a field made required binds the next write of a person without a value; the import fills it by its new label', async () => {
    const { users, b, patch } = await setUp();
    await patch({ custom_fields: [seat, { ...diet, label: 'Dietary needs', required: true }] });
    const res = await t.request({ method: 'PATCH', url: `${users}/${b.id}`, key, json: { custom_fields: { seat: 3 } } });
    expect(res.json().error).toMatchObject({ code: 'parameter_missing', param: 'custom_fields.diet' });
    const imported = await t.request({
      method: 'POST',
      url: `${users}/import`,
      key,
      headers: { 'content-type': 'text/csv' },
      payload: `email,first_name,Dietary needs\n${b.email},P,none\n`,
    });
    expect(imported.json()).toMatchObject({ updated: 1, failed: 0 });
    expect((await t.request({ method: 'GET', url: `${users}/${b.id}`, key })).json().custom_fields).toEqual({
      seat: 2,
      diet: 'none',
    });
  });
});

describe('authentication', () => {
  let id = '';
  beforeAll(async () => {
    id = (await create({ name: 'owned' })).json().id;
  });
  authContract(() => ({
    t,
    routes: [
      { method: 'POST', url: '/v1/collections', json: { name: 'x' } },
      { method: 'GET', url: '/v1/collections' },
      { method: 'GET', url: `/v1/collections/${id}`, owned: true },
      { method: 'PATCH', url: `/v1/collections/${id}`, json: { name: 'y' }, owned: true },
      { method: 'DELETE', url: `/v1/collections/${id}`, owned: true },
    ],
  }));

  it("does not list another account's collections", async () => {
    const other = await t.newAccount();
    const res = await t.request({ method: 'GET', url: '/v1/collections', key: other.key });
    expect(res.json()).toEqual({ data: [], has_more: false, next_cursor: null });
  });
});
