/**
 * Import files outside the common case, through `POST …/users/import` and the CSV batch: every
 * encoding a spreadsheet or an editor writes, and files past a bound (people, columns, row and
 * cell length, rows of any kind), each answered with a documented 400 as soon as the bound is
 * crossed, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Files' } });
  collectionId = res.json().id;
});
afterAll(() => t.close());

const post = (path: 'import?dry_run=true' | 'import' | 'batch', body: Buffer | string) =>
  t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users/${path}`,
    key,
    headers: { 'content-type': 'text/csv' },
    payload: body,
  });

const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
function utf32(text: string, endian: 'le' | 'be'): Buffer {
  const chars = [...text];
  const out = Buffer.alloc(chars.length * 4);
  chars.forEach((c, i) =>
    endian === 'le' ? out.writeUInt32LE(c.codePointAt(0) as number, i * 4) : out.writeUInt32BE(c.codePointAt(0) as number, i * 4),
  );
  return out;
}

describe('encodings', () => {
  const text = 'email,first_name,last_name\r\nzoe@example.com,Zoë,Ñúñez\r\n';

  it.each([
    ['UTF-16BE with its mark', utf16be(`\uFEFF${text}`)],
    ['UTF-16LE without a mark', Buffer.from(text, 'utf16le')],
    ['UTF-16BE without a mark', utf16be(text)],
  ])('reads %s', async (_name, body) => {
    const res = await post('import?dry_run=true', body);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().preview).toEqual([
      expect.objectContaining({ action: 'create', email: 'zoe@example.com', first_name: 'Zoë', last_name: 'Ñúñez' }),
    ]);
    const batch = await post('batch', body);
    expect(batch.statusCode, batch.body).toBe(201);
    expect(batch.json().data).toEqual([expect.objectContaining({ first_name: 'Zoë', last_name: 'Ñúñez' })]);
    await t.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${batch.json().data[0].id}`, key });
  });

  it.each([
    ['UTF-32LE with its mark', utf32(`\uFEFF${text}`, 'le'), 'UTF-32 (little-endian)'],
    ['UTF-32BE with its mark', utf32(`\uFEFF${text}`, 'be'), 'UTF-32 (big-endian)'],
    ['UTF-32LE without a mark', utf32(text, 'le'), 'UTF-32 (little-endian)'],
    ['UTF-32BE without a mark', utf32(text, 'be'), 'UTF-32 (big-endian)'],
  ])('refuses %s naming the encoding and how to save the file', async (_name, body, name) => {
    for (const path of ['import?dry_run=true', 'batch'] as const) {
      const res = await post(path, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_csv', type: 'invalid_request_error' });
      expect(res.json().error.message).toContain(name);
      expect(res.json().error.message).toContain('"CSV UTF-8"');
    }
  });
});

describe('identifiers no person can have', () => {
  it('a NUL or another control character in an external_id or e-mail cell is a row error, not a failed lookup', async () => {
    const file = Buffer.from(
      'external_id,first_name,email\n\u0000,A,a@example.com\nx,B,b\u0000@example.com\n\u0001,C,c@example.com\n',
    );
    for (const path of ['import?dry_run=true', 'import'] as const) {
      const res = await post(path, file);
      expect(res.statusCode, res.body).toBe(path === 'import' ? 400 : 200);
      const errors = path === 'import' ? res.json().error.errors : res.json().errors;
      expect(errors.map((e: { row: number; column: string }) => [e.row, e.column])).toEqual([
        [2, 'external_id'],
        [3, 'email'],
        [4, 'external_id'],
      ]);
    }
  });
});

describe('bounds', () => {
  const header = 'first_name,email\n';

  it('refuses a million rows at the first person past 10,000 (or 1,000 for a batch)', async () => {
    const body = header + 'a,\n'.repeat(1_000_000);
    const started = performance.now();
    const res = await post('import?dry_run=true', body);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'too_many_rows', type: 'invalid_request_error' });
    expect(res.json().error.message).toContain('at most 10,000 people');
    const batch = await post('batch', body);
    expect(batch.statusCode).toBe(400);
    expect(batch.json().error).toMatchObject({ code: 'parameter_invalid', param: 'users' });
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses more than 50,000 rows of any kind (blank ones included)', async () => {
    const res = await post('import', `${header}a,a@example.com\n${'\n'.repeat(2_000_000)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'too_many_rows' });
    expect(res.json().error.message).toContain('50,000 rows');
  });

  it('refuses more than 200 columns in the header or in a row with too_many_columns', async () => {
    const columns = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 ? 'email' : i === 1 ? 'first_name' : `c${i}`));
    const ok = await post('import?dry_run=true', `${columns(200).join(',')}\na@example.com,A\n`);
    expect(ok.statusCode, ok.body).toBe(200);
    for (const body of [
      `${columns(201).join(',')}\na@example.com,A\n`,
      `${columns(200_000).join(',')}\n`,
      `email,first_name\na@example.com,A${',x'.repeat(300_000)}\n`,
    ]) {
      for (const path of ['import?dry_run=true', 'batch'] as const) {
        const res = await post(path, body);
        expect(res.statusCode).toBe(400);
        // 200,000 headings are also more than a row's 64 KiB; either way the answer names the bound.
        expect(['too_many_columns', 'invalid_csv']).toContain(res.json().error.code);
        expect(res.json().error.message).toMatch(/more than 200 cells|longer than 64 KiB/);
      }
    }
    const exact = await post('import?dry_run=true', `${columns(201).join(',')}\n`);
    expect(exact.json().error).toMatchObject({ code: 'too_many_columns', message: expect.stringContaining('Row 1') });
  });

  it('refuses a 4 MB line, a row over 64 KiB and a cell over 10,000 characters with invalid_csv', async () => {
    const cases: [string, string][] = [
      ['x'.repeat(4 * 1024 * 1024), 'Row 1 is longer than 64 KiB'],
      [`email,first_name,notes\na@example.com,A,"${'long\n'.repeat(14_000)}"\n`, 'Row 2 is longer than 64 KiB'],
      [`email,first_name,notes\na@example.com,A,${'n'.repeat(10_001)}\n`, 'Row 2, column 3 has more than 10,000 characters'],
    ];
    for (const [body, message] of cases) {
      for (const path of ['import?dry_run=true', 'import', 'batch'] as const) {
        const res = await post(path, body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toMatchObject({ code: 'invalid_csv', message: expect.stringContaining(message) });
      }
    }
    const fits = await post('import?dry_run=true', `email,first_name,notes\na@example.com,A,${'n'.repeat(10_000)}\n`);
    expect(fits.statusCode, fits.body.slice(0, 300)).toBe(200);
  });
});
