import { describe, expect, it } from 'vitest';
import { decodeCsvBytes, detectDelimiter, readCsvTable } from './csv-file.js';

describe('decodeCsvBytes', () => {
  it('reads Windows-1252 as Excel writes it, euro sign and curly quotes included', () => {
    const bytes = Uint8Array.from([0x4a, 0xfc, 0x72, 0x67, 0x65, 0x6e, 0x20, 0x80, 0x93, 0x94, 0x96, 0xdf, 0xe9]);
    expect(decodeCsvBytes(bytes)).toEqual({ text: 'Jürgen €“”–ßé', encoding: 'windows-1252' });
    // The five bytes Windows-1252 leaves unassigned stay C1 controls (refused later as unsafe text).
    expect(decodeCsvBytes(Uint8Array.from([0x81, 0x8d, 0x8f, 0x90, 0x9d])).text).toBe('\u0081\u008d\u008f\u0090\u009d');
    const all = decodeCsvBytes(Uint8Array.from({ length: 32 }, (_, i) => 0x80 + i)).text;
    expect(all).toHaveLength(32);
  });

  it('prefers UTF-8, drops a byte-order mark, and reads UTF-16LE with its mark', () => {
    expect(decodeCsvBytes(Buffer.from('Zoë', 'utf8'))).toEqual({ text: 'Zoë', encoding: 'utf-8' });
    expect(decodeCsvBytes(Buffer.from('\uFEFFZoë', 'utf8'))).toEqual({ text: 'Zoë', encoding: 'utf-8' });
    expect(decodeCsvBytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('a\tb', 'utf16le')]))).toEqual({
      text: 'a\tb',
      encoding: 'utf-16le',
    });
  });
});

describe('detectDelimiter', () => {
  it.each([
    ['email,first_name;x\n', ','],
    ['E-Mail;Vorname;Nachname\r\na,b;c', ';'],
    ['email\tfirst\n', '\t'],
    ['"a;b;c",d\n', ','],
    ['email\n', ','],
  ])('%j → %j', (text, expected) => expect(detectDelimiter(text)).toBe(expected));
});

describe('readCsvTable', () => {
  it('numbers rows as a spreadsheet does: header 1, blank lines counted, a quoted line break stays one row', () => {
    const table = readCsvTable(Buffer.from('email,notes\r\na@x.io,"two\r\nlines"\r\n\r\n;;\r\nb@x.io,\r\n', 'utf8'));
    expect(table.header).toEqual(['email', 'notes']);
    expect(table.rows).toEqual([
      { row: 2, cells: ['a@x.io', 'two\r\nlines'] },
      { row: 4, cells: [';;'] },
      { row: 5, cells: ['b@x.io', ''] },
    ]);
  });
});
