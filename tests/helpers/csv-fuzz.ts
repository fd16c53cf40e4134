/**
 * Generated CSV files for the attack suite: small files of hostile headings and cells in every
 * encoding a file may come in, and files at and far past each bound the reader keeps (people,
 * rows of any kind, columns, row and cell length), plus bytes that are no text at all.
 */
import fc from 'fast-check';

export const ENCODINGS = [
  'utf-8',
  'utf-8-bom',
  'utf-16le',
  'utf-16le-bom',
  'utf-16be',
  'utf-16be-bom',
  'utf-32le',
  'utf-32le-bom',
  'utf-32be',
  'utf-32be-bom',
  'windows-1252',
] as const;
export type Encoding = (typeof ENCODINGS)[number];

/** The most bytes a generated file is built with: past the 5 MB body limit, so 413 is met too. */
const MAX_FILE_BYTES = 5.5 * 1024 * 1024;

export function encode(text: string, encoding: Encoding): Buffer {
  const bom = encoding.endsWith('-bom');
  const body = bom ? `\uFEFF${text}` : text;
  switch (encoding.replace('-bom', '')) {
    case 'utf-8':
      return Buffer.from(body, 'utf8');
    case 'utf-16le':
      return Buffer.from(body, 'utf16le');
    case 'utf-16be':
      return Buffer.from(body, 'utf16le').swap16();
    case 'windows-1252':
      return Buffer.from(body, 'latin1');
    default: {
      const chars = [...body];
      const out = Buffer.alloc(chars.length * 4);
      const little = encoding.startsWith('utf-32le');
      chars.forEach((c, i) => (little ? out.writeUInt32LE : out.writeUInt32BE).call(out, c.codePointAt(0) ?? 0, i * 4));
      return out;
    }
  }
}

const quoted = (cell: string) => (/[",;\t\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);

/** A small file of the given headings and rows, in any separator and encoding. */
export const smallFile = (heading: fc.Arbitrary<string>, cell: fc.Arbitrary<string>) =>
  fc
    .record({
      header: fc.array(heading, { minLength: 1, maxLength: 6 }),
      rows: fc.array(fc.array(cell, { maxLength: 7 }), { maxLength: 6 }),
      separator: fc.constantFrom(',', ';', '\t'),
      lineEnd: fc.constantFrom('\n', '\r\n', '\r'),
      encoding: fc.constantFrom(...ENCODINGS),
    })
    .map(({ header, rows, separator, lineEnd, encoding }) =>
      encode([header, ...rows].map((row) => row.map(quoted).join(separator)).join(lineEnd), encoding),
    );

/** Rows by the thousand or million: at, just past and far past the limits of people and rows. */
const manyRows = fc
  .record({
    rows: fc.constantFrom(999, 1_000, 1_001, 9_999, 10_000, 10_001, 49_999, 50_001, 1_000_000),
    line: fc.constantFrom('a,', '', ',', ';;', 'p@example.com,P', '"q\nr",'),
    encoding: fc.constantFrom<Encoding>('utf-8', 'utf-8-bom', 'utf-16le-bom', 'utf-16be', 'windows-1252'),
  })
  .map(({ rows, line, encoding }) => {
    const count = Math.min(rows, Math.floor(MAX_FILE_BYTES / (line.length + 1) / (encoding.startsWith('utf-16') ? 2 : 1)));
    return encode(`email,first_name\n${`${line}\n`.repeat(count)}`, encoding);
  });

/** Columns in the header or in a row: at, just past and far past the 200 a file may have. */
const manyColumns = fc
  .record({
    columns: fc.constantFrom(199, 200, 201, 5_000, 200_000),
    inHeader: fc.boolean(),
    cell: fc.constantFrom('', 'c', '"q"', 'x'.repeat(20)),
    separator: fc.constantFrom(',', ';', '\t'),
  })
  .map(({ columns, inHeader, cell, separator }) => {
    const wide = Array.from({ length: columns }, (_, i) => (i === 0 ? 'email' : i === 1 ? 'first_name' : cell || `c${i}`));
    const text = inHeader
      ? `${wide.join(separator)}\np@example.com${separator}P\n`
      : `email${separator}first_name\np@example.com${separator}P${separator.repeat(columns - 2)}${cell}\n`;
    return Buffer.from(text, 'utf8');
  });

/** One long cell, quoted or not, with or without line breaks: around 10,000 characters and 64 KiB, and 4 MB. */
const longCells = fc
  .record({
    length: fc.constantFrom(9_999, 10_000, 10_001, 65_535, 65_537, 4 * 1024 * 1024),
    quoted: fc.boolean(),
    lineBreaks: fc.boolean(),
    char: fc.constantFrom('x', 'é', '😀', '"'),
    closed: fc.boolean(),
  })
  .map(({ length, quoted: isQuoted, lineBreaks, char, closed }) => {
    const unit = lineBreaks ? `${char}\n` : char;
    const content = unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
    const cell = isQuoted ? `"${content.replaceAll('"', '""')}${closed ? '"' : ''}` : content;
    return Buffer.from(`email,first_name,notes\np@example.com,P,${cell}\n`, 'utf8');
  });

/** Bytes that are no text, behind any byte-order mark or none. */
const noise = fc
  .record({
    mark: fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff], [0xff, 0xfe, 0, 0], [0, 0, 0xfe, 0xff]),
    bytes: fc.uint8Array({ maxLength: 2000 }),
  })
  .map(({ mark, bytes }) => Buffer.concat([Buffer.from(mark), bytes]));

/** Files past the bounds, weighted toward the cheap ones. */
export const boundFile = fc.oneof(manyRows, manyColumns, longCells);
export const noiseFile = noise;
