import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../src/lib/pagination.js';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const list = (key: string, query: string) => t.request({ method: 'GET', url: `/v1/collections${query}`, key });

describe('GET /v1/collections pagination', () => {
  it('defaults to 50 and accepts limits 1 and 100; refuses 0, 101 and non-integers', async () => {
    const { key } = await t.newAccount();
    for (let i = 0; i < 101; i++) await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `c${i}` } });
    const first = (await list(key, '')).json();
    expect(first.data).toHaveLength(50);
    expect(first.has_more).toBe(true);
    expect(typeof first.next_cursor).toBe('string');
    expect((await list(key, '?limit=1')).json().data).toHaveLength(1);
    const hundred = (await list(key, '?limit=100')).json();
    expect(hundred.data).toHaveLength(100);
    expect(hundred.has_more).toBe(true);
    const rest = (await list(key, `?limit=100&cursor=${hundred.next_cursor}`)).json();
    expect(rest).toMatchObject({ has_more: false, next_cursor: null });
    expect(rest.data).toHaveLength(1);
    for (const bad of ['0', '101', '-1', '1.5', 'ten', '']) {
      const res = await list(key, `?limit=${bad}`);
      expect(res.statusCode, `limit=${bad}`).toBe(400);
      expect(res.json().error.param).toBe('limit');
    }
  });

  it('orders newest first (ties by id, descending) and omits archived collections', async () => {
    const { key } = await t.newAccount();
    const created: { id: string; created_at: string }[] = [];
    for (let i = 0; i < 5; i++)
      created.push((await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `c${i}` } })).json());
    await t.request({ method: 'DELETE', url: `/v1/collections/${created[2]?.id}`, key });
    const expected = created
      .filter((_, i) => i !== 2)
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
      .map((c) => c.id);
    const data = (await list(key, '')).json().data as { id: string }[];
    expect(data.map((c) => c.id)).toEqual(expected);
  });

  it.each([
    'garbage!',
    'bm90LWpzb24',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('["yesterday","x"]').toString('base64url'),
    'a'.repeat(300),
  ])('refuses the malformed cursor %s with 400 invalid_cursor', async (cursor) => {
    const { key } = await t.newAccount();
    const res = await list(key, `?cursor=${encodeURIComponent(cursor)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toMatch(/invalid_cursor|parameter_invalid/);
    expect(res.json().error.param).toBe('cursor');
  });

  it('a cursor from another account reveals nothing of it', async () => {
    const { key } = await t.newAccount();
    const cursor = encodeCursor({ createdAt: '2999-01-01T00:00:00.000Z', id: 'ffffffff' });
    expect((await list(key, `?cursor=${cursor}`)).json()).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('property: with creates and archives between page reads, every collection alive throughout is seen exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean()), { minLength: 1, maxLength: 12 }),
        async (initial, limit, betweenPages) => {
          const { key } = await t.newAccount();
          const create = async () =>
            (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'p' } })).json().id as string;
          const stable: string[] = [];
          for (let i = 0; i < initial; i++) stable.push(await create());
          const volatile: string[] = [];
          const seen: string[] = [];
          let cursor: string | null = null;
          let step = 0;
          do {
            const page: { data: { id: string }[]; next_cursor: string | null } = (
              await list(key, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
            ).json();
            seen.push(...page.data.map((c: { id: string }) => c.id));
            cursor = page.next_cursor;
            const [creates, archiveOne] = betweenPages[step++ % betweenPages.length] ?? [0, false];
            for (let i = 0; i < creates; i++) volatile.push(await create());
            if (archiveOne && volatile.length > 0) {
              await t.request({ method: 'DELETE', url: `/v1/collections/${volatile.shift()}`, key });
            }
          } while (cursor !== null);
          expect(new Set(seen).size).toBe(seen.length);
          for (const id of stable) expect(seen.filter((s) => s === id)).toHaveLength(1);
        },
      ),
      { numRuns: 25 },
    );
  });
});
