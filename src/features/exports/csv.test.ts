import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv.js';
import { attachmentDisposition, audioFileName, safeFileNamePart } from './file-names.js';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+61 2 9999 0000', `"'+61 2 9999 0000"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1)', `"'@SUM(A1)"`],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    [' =1+1', `"' =1+1"`],
    ['\u3000 +1', `"'\u3000 +1"`],
    ['＝1+1', `"'＝1+1"`],
    ['＋1', `"'＋1"`],
    ['－1', `"'－1"`],
    ['＠SUM(A1)', `"'＠SUM(A1)"`],
  ])('makes %j inert', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('quotes every cell and leaves ordinary text alone', () => {
    expect(csvCell('Siobhán Ní Bhriain')).toBe('"Siobhán Ní Bhriain"');
    expect(csvCell('a=b')).toBe('"a=b"');
    expect(csvCell('Smith, Jane')).toBe('"Smith, Jane"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('""');
    expect(csvCell(42)).toBe('"42"');
    expect(csvCell(-1)).toBe(`"'-1"`);
    expect(csvCell(true)).toBe('"true"');
  });

  it('ends lines with CRLF', () => {
    expect(csvLine(['a', null, '=b'])).toBe(`"a","","'=b"\r\n`);
  });
});

/** Values people can type, each of which once reached a spreadsheet as a formula. */
const HOSTILE = [
  "Ada;=cmd|' /C calc'!A0",
  'Ada,=1+1',
  'Ada\t=1+1',
  '＝1+1',
  ' =1+1',
  '\t+1',
  '@SUM(A1:A9)',
  'Grace;－1',
  'plain "quoted" text',
  'line\r\nbreak;@x',
];
const TRIGGER = /^[^\S\t\r]*[=+\-@\t\r＝＋－＠﹦﹢﹣﹫]/u;

/**
 * Splits a file the way a spreadsheet does with `delimiter` as its list separator: a field that
 * opens with a quote runs to its closing quote (`""` is one quote) and then, like Excel, takes
 * whatever follows up to the next separator or line end as it is.
 */
function spreadsheetRows(file: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let i = 0;
  let atFieldStart = true;
  while (i < file.length) {
    const char = file[i]!;
    if (atFieldStart && char === '"') {
      i++;
      while (i < file.length && !(file[i] === '"' && file[i + 1] !== '"')) {
        cell += file[i];
        i += file[i] === '"' ? 2 : 1;
      }
      i++;
      atFieldStart = false;
    } else if (char === delimiter) {
      row.push(cell);
      cell = '';
      atFieldStart = true;
      i++;
    } else if (char === '\r' && file[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      atFieldStart = true;
      i += 2;
    } else {
      cell += char;
      atFieldStart = false;
      i++;
    }
  }
  return rows;
}

describe('a CSV file read with the list separator of any spreadsheet locale', () => {
  it.each([
    [',', 'comma'],
    [';', 'semicolon'],
    ['\t', 'tab'],
  ])('split on %j (%s): each value stays in one cell and no cell starts a formula', (delimiter) => {
    const file = csvLine(['name', 'note']) + HOSTILE.map((value) => csvLine([value, 'x'])).join('');
    const rows = spreadsheetRows(file, delimiter);
    expect(rows).toHaveLength(HOSTILE.length + 1);
    for (const [index, row] of rows.slice(1).entries()) {
      // Quoting keeps a separator inside a value: the value never spills into a cell of its own.
      expect(row).toHaveLength(delimiter === ',' ? 2 : 1);
      for (const cell of row) expect(cell).not.toMatch(TRIGGER);
      expect(row[0]!.replace(/^'/, '').startsWith(HOSTILE[index]!)).toBe(true);
    }
  });
});

describe('file names', () => {
  it('are safe on every OS and keep the name readable', () => {
    expect(audioFileName(2, 'Siobhán Ní Bhriain')).toBe('2-Siobhán Ní Bhriain.mp3');
    expect(audioFileName(3, 'a/b\\c:d*e?f"g<h>i|j')).toBe('3-a b c d e f g h i j.mp3');
    expect(audioFileName(4, '../../etc/passwd')).toBe('4-etc passwd.mp3');
    expect(audioFileName(5, '...')).toBe('5-person.mp3');
    expect(audioFileName(6, 'CON')).toBe('6-CON.mp3');
    expect(audioFileName(7, 'Trailing dot. ')).toBe('7-Trailing dot.mp3');
  });

  it('are shortened on a character boundary', () => {
    const long = safeFileNamePart('名'.repeat(200));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(150);
    expect(long).toBe('名'.repeat(50));
  });

  it('make a Content-Disposition with an ASCII fallback and the exact UTF-8 name', () => {
    expect(attachmentDisposition('Class of 2027 "Ünï"', 'zip')).toBe(
      `attachment; filename="Class of 2027 _n_.zip"; filename*=UTF-8''Class%20of%202027%20%C3%9Cn%C3%AF.zip`,
    );
  });
});
