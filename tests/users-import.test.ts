/**
 * `POST /v1/collections/{id}/users/import`: spreadsheet files as organisers have them (BOM,
 * Excel's semicolon-separated Windows-1252, loose headings), every error of every row at once,
 * upserts on re-import, dry runs, valid_rows, and the 10,000-row and 5 MB limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { authContract } from './helpers/auth-contract.js';

let t: TestApp;
let key: string;

const CUSTOM_FIELDS = [
  { key: 'student_id', label: 'Student ID', type: 'text', required: true },
  { key: 'seat', label: 'Seat number', type: 'number' },
  { key: 'graduate', label: 'Graduate', type: 'boolean' },
];

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

async function newCollection(custom_fields: unknown[] = CUSTOM_FIELDS): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Import', custom_fields } });
  return res.json().id;
}
const importFile = (collectionId: string, body: string | Buffer, query = '', k = key) =>
  t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users/import${query}`,
    key: k,
    headers: { 'content-type': 'text/csv' },
    payload: body,
  });
async function people(collectionId: string) {
  const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users?limit=100`, key });
  return (res.json().data as Record<string, unknown>[]).sort((a, b) => String(a.email).localeCompare(String(b.email)));
}
const memberCount = async (collectionId: string) =>
  (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}`, key })).json().member_count as number;

/** Windows-1252 bytes of `text` (only Latin-1 letters and the euro sign are used here). */
function windows1252(text: string): Buffer {
  return Buffer.from([...text].map((c) => (c === '€' ? 0x80 : (c.codePointAt(0) as number))));
}

describe('reading files', () => {
  it('imports one-name people, headings in any spelling, and custom fields by label or key', async () => {
    const id = await newCollection();
    const file = [
      'E-mail,First Name,Surname,preferred_name,PRONOUNS,Student ID,seat,Graduate',
      'ana@example.com,Ana,Diaz,,she/her,S1,12,yes',
      'pele@example.com,Pelé,,,,S2,"3,5",no',
    ].join('\r\n');
    const res = await importFile(id, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'all_or_nothing', dry_run: false, rows: 2, created: 2, updated: 0, failed: 0 });
    expect(res.json().warnings).toEqual([]);
    const [ana, pele] = await people(id);
    expect(ana).toMatchObject({
      first_name: 'Ana',
      last_name: 'Diaz',
      display_name: 'Ana Diaz',
      pronouns: 'she/her',
      preferred_name: null,
      custom_fields: { student_id: 'S1', seat: 12, graduate: true },
    });
    expect(pele).toMatchObject({
      first_name: 'Pelé',
      last_name: '',
      display_name: 'Pelé',
      custom_fields: { seat: 3.5, graduate: false },
    });
    expect(await memberCount(id)).toBe(2);
  });

  it('reads a UTF-8 file with a byte-order mark (the first heading is not polluted)', async () => {
    const id = await newCollection([]);
    const res = await importFile(id, Buffer.from('\uFEFFemail,first_name\nbom@example.com,Zoë\n', 'utf8'));
    expect(res.statusCode, res.body).toBe(200);
    expect((await people(id))[0]).toMatchObject({ email: 'bom@example.com', first_name: 'Zoë' });
  });

  it("reads Excel's semicolon-separated Windows-1252 file (é, ü, ß)", async () => {
    const id = await newCollection([{ key: 'city', label: 'Stadt', type: 'text' }]);
    const file = windows1252(
      [
        'E-Mail;Vorname;Nachname;First name;Last name;Stadt',
        'a@example.com;x;x;Jürgen;Weiß;Köln',
        'b@example.com;x;x;Renée;Müller;Zürich €',
      ].join('\r\n'),
    );
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(file)).toThrow();
    const res = await importFile(id, file);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().created).toBe(2);
    expect(res.json().warnings.map((w: { column: string }) => w.column)).toEqual(['Vorname', 'Nachname']);
    const [a, b] = await people(id);
    expect(a).toMatchObject({ display_name: 'Jürgen Weiß', custom_fields: { city: 'Köln' } });
    expect(b).toMatchObject({ first_name: 'Renée', last_name: 'Müller', custom_fields: { city: 'Zürich €' } });
  });

  it('ignores unknown columns with a warning naming them and how many values were dropped', async () => {
    const id = await newCollection([]);
    const res = await importFile(id, 'email,first_name,Shoe size,\nshoe@example.com,Al,42,\nshoe2@example.com,Bo,,\n');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().created).toBe(2);
    expect(res.json().warnings).toEqual([
      { row: 1, column: 'Shoe size', code: 'column_unknown', message: expect.stringContaining('1 value was ignored') },
    ]);
  });

  it('refuses an unusable header with every problem at row 1, and a file without people', async () => {
    const id = await newCollection([]);
    const res = await importFile(id, 'Mail,E-mail,Last name,Notes\na@example.com,a@example.com,B,x\n');
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('invalid_csv');
    expect(error.errors).toEqual([
      expect.objectContaining({ row: 1, column: 'E-mail', code: 'column_duplicate' }),
      expect.objectContaining({ row: 1, column: 'first_name', code: 'column_missing' }),
    ]);
    expect(error.warnings).toEqual([expect.objectContaining({ column: 'Notes', code: 'column_unknown' })]);
    for (const body of ['email,first_name\n', '', '\n\n', 'email,first_name\n"unclosed,A\n']) {
      const empty = await importFile(id, body);
      expect(empty.statusCode, body).toBe(400);
      expect(empty.json().error.code).toBe('invalid_csv');
    }
    expect(await memberCount(id)).toBe(0);
  });
});

describe('errors, modes and dry runs', () => {
  const file = [
    'email,first_name,last_name,Student ID,Seat number',
    'good1@example.com,Good,One,S1,1', // row 2
    'not-an-email,,Two,,soon', // row 3: e-mail, first name, student id, seat
    '', // row 4: blank lines keep the numbering
    'good2@example.com,Good,Three,S3,3', // row 5
    'GOOD1@example.com,Dup,Four,S4,4', // row 6: same e-mail as row 2
    `good5@example.com,${'x'.repeat(101)},Five,S5,5`, // row 7: first name too long
  ].join('\n');

  it('all_or_nothing reports every error of every row with its spreadsheet row and column, and writes nothing', async () => {
    const id = await newCollection();
    const res = await importFile(id, file);
    expect(res.statusCode).toBe(400);
    const error = res.json().error;
    expect(error.code).toBe('import_invalid');
    expect(error.message).toContain('3 of 5 rows');
    expect(error.errors.map((e: { row: number; column: string; code: string }) => [e.row, e.column, e.code])).toEqual([
      [3, 'email', 'parameter_invalid'],
      [3, 'first_name', 'parameter_missing'],
      [3, 'Student ID', 'parameter_missing'],
      [3, 'Seat number', 'parameter_invalid'],
      [6, 'email', 'email_taken'],
      [7, 'first_name', 'parameter_invalid'],
    ]);
    expect(error.errors[4].message).toContain('row 2');
    for (const item of error.errors) expect(item.message.length).toBeGreaterThan(10);
    expect(await memberCount(id)).toBe(0);
  });

  it('a name language that is not a real tag is a row error, not silently dropped', async () => {
    const id = await newCollection([]);
    const file = ['email,first_name,Name Language', 'ana@example.com,Ana,es-MX', 'bo@example.com,Bo,en-US-US'].join('\n');
    const res = await importFile(id, file);
    expect(res.statusCode).toBe(400);
    const errors = res.json().error.errors as { row: number; column: string; message: string }[];
    expect(errors.map((e) => [e.row, e.column])).toEqual([[3, 'Name Language']]);
    expect(errors[0]?.message).toContain('"en-US-US" is not a BCP 47 language tag');
    expect(await memberCount(id)).toBe(0);
  });

  it('a dry run reports the same, previews the rows as they will be stored, and writes nothing', async () => {
    const id = await newCollection();
    const res = await importFile(id, file, '?dry_run=true');
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json();
    expect(report).toMatchObject({ dry_run: true, rows: 5, created: 2, updated: 0, unchanged: 0, failed: 3 });
    expect(report.errors).toHaveLength(6);
    expect(report.preview.map((p: { row: number; action: string }) => [p.row, p.action])).toEqual([
      [2, 'create'],
      [3, 'error'],
      [5, 'create'],
      [6, 'error'],
      [7, 'error'],
    ]);
    expect(report.preview[0]).toMatchObject({
      email: 'good1@example.com',
      display_name: 'Good One',
      custom_fields: { student_id: 'S1', seat: 1 },
    });
    expect(report.preview[1]).toMatchObject({ email: 'not-an-email', first_name: null, custom_fields: { seat: 'soon' } });
    expect(await memberCount(id)).toBe(0);
    expect(await people(id)).toEqual([]);
  });

  it('valid_rows imports the good rows and reports the others', async () => {
    const id = await newCollection();
    const res = await importFile(id, file, '?mode=valid_rows');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ mode: 'valid_rows', created: 2, failed: 3 });
    expect(res.json().errors).toHaveLength(6);
    expect((await people(id)).map((p) => p.email)).toEqual(['good1@example.com', 'good2@example.com']);
    expect(await memberCount(id)).toBe(2);
  });

  it('refuses unknown query values and other content types in the envelope', async () => {
    const id = await newCollection([]);
    const bad = await importFile(id, 'email,first_name\na@example.com,A\n', '?mode=some');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'mode' });
    const json = await t.request({ method: 'POST', url: `/v1/collections/${id}/users/import`, key, json: { users: [] } });
    expect(json.statusCode).toBe(415);
    expect(json.json().error.code).toBe('unsupported_media_type');
  });
});

describe('re-import (upsert)', () => {
  it('the same file again is all unchanged; a changed row is updated; matching by external_id, else e-mail', async () => {
    const id = await newCollection();
    const first = [
      'external_id,email,first_name,last_name,student_id',
      'E1,one@example.com,One,A,S1',
      'E2,two@example.com,Two,B,S2',
    ];
    expect((await importFile(id, first.join('\n'))).json()).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    const before = await people(id);

    const again = await importFile(id, first.join('\n'));
    expect(again.json()).toMatchObject({ created: 0, updated: 0, unchanged: 2, failed: 0 });
    expect(await people(id)).toEqual(before);

    // E1 changes e-mail and name (matched by external_id); a new row without an id is created.
    const changed = [first[0], 'E1,uno@example.com,Uno,A,S1', first[2], ',three@example.com,Three,,S3'].join('\n');
    const res = await importFile(id, changed);
    expect(res.json()).toMatchObject({ created: 1, updated: 1, unchanged: 1, failed: 0 });
    const after = await people(id);
    const uno = after.find((p) => p.external_id === 'E1');
    expect(uno).toMatchObject({
      id: before.find((p) => p.external_id === 'E1')?.id,
      email: 'uno@example.com',
      display_name: 'Uno A',
    });
    expect(String(uno?.updated_at) > String(before[0]?.updated_at)).toBe(true);
    expect(await memberCount(id)).toBe(3);

    // Matched by e-mail: the person gets the external_id; an empty external_id cell keeps it.
    const byEmail = await importFile(
      id,
      'email,first_name,last_name,external_id,student_id\nthree@example.com,Three,,E3,S3\nuno@example.com,Uno,A,,S1\n',
    );
    expect(byEmail.json()).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    expect((await people(id)).find((p) => p.email === 'three@example.com')?.external_id).toBe('E3');
  });

  it('empty cells clear a matched person’s values, absent columns keep them, conflicts are row errors', async () => {
    const id = await newCollection();
    await importFile(
      id,
      'email,first_name,last_name,phonetic_spelling,pronouns,student_id,seat\nkeep@example.com,Kay,Lee,KAY,she/her,S1,4\nother@example.com,Oz,Ma,,,S2,\n',
    );
    const res = await importFile(id, 'email,first_name,pronouns,seat\nkeep@example.com,Kay,,\n');
    expect(res.json()).toMatchObject({ updated: 1 });
    expect((await people(id))[0]).toMatchObject({
      last_name: 'Lee',
      phonetic_spelling: 'KAY',
      pronouns: null,
      custom_fields: { student_id: 'S1' },
    });
    // A row whose external_id is new but whose e-mail belongs to a person with another id; two rows for one person.
    await importFile(id, 'external_id,email,first_name,student_id\nX1,keep@example.com,Kay,S1\n');
    const conflict = await importFile(
      id,
      'external_id,email,first_name,student_id\nX2,keep@example.com,Kay,S1\nX1,other@example.com,Kay,S1\n',
    );
    expect(conflict.statusCode).toBe(400);
    expect(conflict.json().error.errors.map((e: { row: number; code: string }) => [e.row, e.code])).toEqual([
      [2, 'email_taken'],
      [3, 'email_taken'],
    ]);
  });
});

describe('limits', () => {
  it('accepts 10,000 people and refuses 10,001', { timeout: 120_000 }, async () => {
    const id = await newCollection([]);
    const rows = Array.from({ length: 10_001 }, (_, i) => `p${i}@example.com,Person,${i}`);
    const tooMany = await importFile(id, `email,first_name,last_name\n${rows.join('\n')}\n`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().error).toMatchObject({ code: 'too_many_rows', type: 'invalid_request_error' });
    expect(await memberCount(id)).toBe(0);
    const res = await importFile(id, `email,first_name,last_name\n${rows.slice(0, 10_000).join('\n')}\n`);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
    expect(res.json()).toMatchObject({ created: 10_000, failed: 0 });
    expect(await memberCount(id)).toBe(10_000);
    const again = await importFile(id, `email,first_name,last_name\n${rows.slice(0, 10_000).join('\n')}\n`);
    expect(again.json()).toMatchObject({ created: 0, unchanged: 10_000 });
  });

  it('accepts a file of exactly 5 MB and refuses one byte more with 413', async () => {
    const id = await newCollection([]);
    const limit = 5 * 1024 * 1024;
    const header = 'email,first_name,notes\n';
    const rows: string[] = [];
    let size = Buffer.byteLength(header);
    for (let i = 0; size < limit - 1000; i++) {
      const row = `big${i}@example.com,Big,${'n'.repeat(600)}\n`;
      rows.push(row);
      size += row.length;
    }
    const last = `last@example.com,Last,`;
    const file = header + rows.join('') + last + 'n'.repeat(limit - size - last.length);
    expect(Buffer.byteLength(file)).toBe(limit);
    const ok = await importFile(id, file, '?dry_run=true');
    expect(ok.statusCode, ok.body.slice(0, 300)).toBe(200);
    expect(ok.json().rows).toBe(rows.length + 1);
    const tooBig = await importFile(id, `${file}n`, '?dry_run=true');
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json().error).toMatchObject({ code: 'payload_too_large', type: 'invalid_request_error' });
  });
});

describe('authentication', () => {
  let collectionId = '';
  beforeAll(async () => {
    collectionId = await newCollection([]);
  });
  authContract(() => ({
    t,
    routes: [
      {
        method: 'POST',
        url: `/v1/collections/${collectionId}/users/import`,
        headers: { 'content-type': 'text/csv' },
        payload: 'email,first_name\nauth@example.com,A\n',
        owned: true,
      },
    ],
  }));
});
