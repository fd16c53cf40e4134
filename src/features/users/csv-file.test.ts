import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors.js';
import { detectEncoding, readCsvTable } from './csv-file.js';

const anyNumber = { max: 100_000, refuse: () => new AppError('too_many_rows', 'too many') };
const read = (bytes: Uint8Array) => readCsvTable(bytes, anyNumber);
const refusal = async (bytes: Uint8Array) => {
  const error = await read(bytes).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
};
const utf16be = (text: string) => Buffer.from(text, 'utf16le').swap16();
const utf32 = (text: string, endian: 'le' | 'be') => {
  const out = Buffer.alloc([...text].length * 4);
  [...text].forEach((c, i) =>
    (endian === 'le' ? out.writeUInt32LE : out.writeUInt32BE).call(out, c.codePointAt(0) as number, i * 4),
  );
  return out;
};

describe('reading encodings', () => {
  it('reads Windows-1252 as Excel writes it, euro sign and curly quotes included', async () => {
    const bytes = Uint8Array.from([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e, 0x20, 0x80, 0x93, 0x94, 0x96, 0xdf, 0xe9]);
    expect(await read(bytes)).toMatchObject({ header: ['Jürgen €“”–ßé'], encoding: 'windows-1252' });
    // The five bytes Windows-1252 leaves unassigned stay C1 controls (refused later as unsafe text).
    expect((await read(Uint8Array.from([0x81, 0x8d, 0x8f, 0x90, 0x9d]))).header).toEqual(['\u0081\u008d\u008f\u0090\u009d']);
  });

  it('prefers UTF-8, drops a byte-order mark, and reads UTF-16 in either byte order, with or without its mark', async () => {
    expect(await read(Buffer.from('Zoë', 'utf8'))).toMatchObject({ header: ['Zoë'], encoding: 'utf-8' });
    expect(await read(Buffer.from('\uFEFFZoë', 'utf8'))).toMatchObject({ header: ['Zoë'], encoding: 'utf-8' });
    const text = 'email\tfirst_name\r\nzoe@example.com\tZoë 😀\r\n';
    const expected = { header: ['email', 'first_name'], rows: [{ row: 2, cells: ['zoe@example.com', 'Zoë 😀'] }] };
    expect(await read(Buffer.from(`\uFEFF${text}`, 'utf16le'))).toMatchObject({ ...expected, encoding: 'utf-16le' });
    expect(await read(utf16be(`\uFEFF${text}`))).toMatchObject({ ...expected, encoding: 'utf-16be' });
    expect(await read(Buffer.from(text, 'utf16le'))).toMatchObject({ ...expected, encoding: 'utf-16le' });
    expect(await read(utf16be(text))).toMatchObject({ ...expected, encoding: 'utf-16be' });
  });

  it('refuses UTF-32, with or without its mark, naming it and how to save the file', async () => {
    for (const [bytes, name] of [
      [utf32('\uFEFFemail,first_name\n', 'le'), 'UTF-32 (little-endian)'],
      [utf32('\uFEFFemail,first_name\n', 'be'), 'UTF-32 (big-endian)'],
      [utf32('email,first_name\n', 'le'), 'UTF-32 (little-endian)'],
      [utf32('email,first_name\n', 'be'), 'UTF-32 (big-endian)'],
    ] as const) {
      const error = await refusal(bytes);
      expect(error.code).toBe('invalid_csv');
      expect(error.message).toContain(name);
      expect(error.message).toContain('"CSV UTF-8"');
    }
  });

  it('leaves random bytes to the UTF-8 and Windows-1252 readers', () => {
    const noise = Uint8Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251);
    expect(detectEncoding(noise).encoding).toBe('windows-1252');
  });
});

describe('separators', () => {
  it.each([
    ['email,first_name;x\n', ','],
    ['E-Mail;Vorname;Nachname\r\na,b;c', ';'],
    ['email\tfirst\n', '\t'],
    ['"a;b;c",d\n', ','],
    ['email\n', ','],
  ])('%j → %j', async (text, expected) => expect((await read(Buffer.from(text))).delimiter).toBe(expected));
});

describe('rows', () => {
  it('numbers rows as a spreadsheet does: header 1, blank lines counted, a quoted line break stays one row', async () => {
    const table = await read(Buffer.from('email,notes\r\na@x.io,"two\r\nlines"\r\n\r\n;;\r\nb@x.io,\r\n', 'utf8'));
    expect(table.header).toEqual(['email', 'notes']);
    expect(table.rows).toEqual([
      { row: 2, cells: ['a@x.io', 'two\r\nlines'] },
      { row: 4, cells: [';;'] },
      { row: 5, cells: ['b@x.io', ''] },
    ]);
  });

  it('reads the same rows whatever falls on a chunk boundary (line ends, quotes, multi-byte characters)', async () => {
    for (const ending of ['\n', '\r\n', '\r']) {
      const lines = Array.from({ length: 3000 }, (_, i) => `p${i}@example.com,"Zoë ${'é'.repeat(i % 7)}${ending}😀",${i}`);
      const table = await read(Buffer.from(['email,first_name,n', ...lines].join(ending) + ending, 'utf8'));
      expect(table.rows).toHaveLength(3000);
      table.rows.forEach(({ row, cells }, i) => {
        expect(row).toBe(i + 2);
        expect(cells).toEqual([`p${i}@example.com`, `Zoë ${'é'.repeat(i % 7)}${ending}😀`, String(i)]);
      });
      const wide = await read(Buffer.from(['email,first_name,n', ...lines].join(ending), 'utf16le'));
      expect(wide.rows.map((r) => r.cells)).toEqual(table.rows.map((r) => r.cells));
    }
  });

  it('refuses broken quoting naming the row', async () => {
    const error = await refusal(Buffer.from(`email\n${'a@x.io\n'.repeat(9000)}b"c\n`));
    expect(error.code).toBe('invalid_csv');
    expect(error.message).toContain('row 9002');
  });
});

describe('bounds, checked while reading', () => {
  it('takes 200 columns and refuses 201, in the header or in any row', async () => {
    const header = Array.from({ length: 200 }, (_, i) => `c${i}`).join(',');
    expect((await read(Buffer.from(`${header}\n${','.repeat(199)}x\n`))).rows).toHaveLength(1);
    expect(await refusal(Buffer.from(`${header},c200\n`))).toMatchObject({ code: 'too_many_columns' });
    const wideRow = await refusal(Buffer.from(`${header}\nx${','.repeat(5_000_000)}`));
    expect(wideRow).toMatchObject({ code: 'too_many_columns' });
    expect(wideRow.message).toContain('Row 2 has more than 200 cells');
  });

  it('refuses a cell over 10,000 characters and a row over 64 KiB', async () => {
    expect((await read(Buffer.from(`a\n${'x'.repeat(10_000)}\n`))).rows).toHaveLength(1);
    const cell = await refusal(Buffer.from(`a,b\nx,${'x'.repeat(10_001)}\n`));
    expect(cell).toMatchObject({ code: 'invalid_csv' });
    expect(cell.message).toContain('Row 2, column 2');
    const row = await refusal(Buffer.from(`a,b\n${`${'x'.repeat(9000)},`.repeat(8)}\n`));
    expect(row.message).toContain('Row 2 is longer than 64 KiB');
    const line = await refusal(Buffer.from('x'.repeat(4 * 1024 * 1024)));
    expect(line.message).toContain('Row 1 is longer than 64 KiB');
    const unclosed = await refusal(Buffer.from(`a\n"${'x\n'.repeat(40_000)}`));
    expect(unclosed.message).toContain('a quote opened in it may never be closed');
  });

  it("stops at the caller's limit of people, and at 50,000 rows of any kind", async () => {
    const limit = { max: 3, refuse: () => new AppError('too_many_rows', 'over three') };
    expect((await readCsvTable(Buffer.from('a\n1\n\n2\n3\n\n'), limit)).rows).toHaveLength(3);
    await expect(readCsvTable(Buffer.from(`a\n${'1\n'.repeat(1_000_000)}`), limit)).rejects.toThrow('over three');
    const blank = await refusal(Buffer.from(`a\n${'\n'.repeat(3_000_000)}`));
    expect(blank).toMatchObject({ code: 'too_many_rows' });
    expect(blank.message).toContain('more than 50,000 rows');
  });
});
