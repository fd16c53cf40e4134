import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from './csv.js';
import { attachmentDisposition, audioFileName, safeFileNamePart } from './file-names.js';

describe('csvCell', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+61 2 9999 0000', "'+61 2 9999 0000"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', `"'\r=1"`],
  ])('makes %j inert', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('leaves ordinary text alone and quotes only when needed', () => {
    expect(csvCell('Siobhán Ní Bhriain')).toBe('Siobhán Ní Bhriain');
    expect(csvCell('a=b')).toBe('a=b');
    expect(csvCell('Smith, Jane')).toBe('"Smith, Jane"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(null)).toBe('');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(-1)).toBe("'-1");
    expect(csvCell(true)).toBe('true');
  });

  it('ends lines with CRLF', () => {
    expect(csvLine(['a', null, '=b'])).toBe("a,,'=b\r\n");
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
