/**
 * Reading a people file as spreadsheets write it: UTF-8 with or without a byte-order mark, the
 * UTF-16 "Unicode text" Excel saves (either byte order, with or without its mark), and the
 * Windows-1252 files Excel writes in many locales, separated by commas, semicolons (locales with
 * a decimal comma) or tabs. Rows keep the number a spreadsheet shows (header = row 1, blank lines
 * count), so errors point at the right row.
 *
 * The file is decoded and parsed a chunk at a time, within bounds (`MAX_CSV_*` in schemas.ts,
 * checked by csv-rows.ts byte by byte, and the caller's limit of people checked row by row):
 * reading stops at the first byte or row past one, and it pauses between chunks, so no file
 * holds the event loop or more memory than its own bytes and the rows it may have.
 */
import { isUtf8 } from 'node:buffer';
import { AppError } from '../../errors.js';
import { timeSlices } from '../../lib/time-slices.js';
import { type CsvDelimiter, CsvRowParser, headerDelimiter, rowTooLong } from './csv-rows.js';
import { MAX_CSV_CELL_CHARS, MAX_CSV_COLUMNS, MAX_CSV_ROW_BYTES, MAX_CSV_ROWS } from './schemas.js';

export type { CsvDelimiter } from './csv-rows.js';
export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface CsvTable {
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  /** The header cells as written (trimmed). */
  header: string[];
  /** Data rows that have at least one non-empty cell, with their spreadsheet row number. */
  rows: { row: number; cells: string[] }[];
}

export interface PeopleLimit {
  /** Data rows with content a file may hold. */
  max: number;
  /** The error for the first row past `max` (reading stops there). */
  refuse(): AppError;
}

/** Bytes decoded and parsed per step: a step takes about a millisecond, even of blank lines. */
const CHUNK_BYTES = 16 * 1024;

const BOUNDS = {
  maxColumns: MAX_CSV_COLUMNS,
  maxRowBytes: MAX_CSV_ROW_BYTES,
  maxRows: MAX_CSV_ROWS,
  maxCellChars: MAX_CSV_CELL_CHARS,
};

/**
 * Windows-1252's characters for bytes 0x80-0x9F (the rest is Latin-1). Node's TextDecoder
 * answers "windows-1252" with Latin-1, which turns the euro sign and curly quotes into C1
 * controls; the five unassigned bytes stay controls, as the WHATWG table has them.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

const view = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function decodeWindows1252(bytes: Uint8Array): string {
  return view(bytes)
    .toString('latin1')
    .replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as string);
}

const saveAsUtf8 = 'Save it as "CSV UTF-8" (in Excel: File, Save As, "CSV UTF-8 (Comma delimited)") and upload it again.';

/**
 * The file's encoding, and where its text starts (after a byte-order mark). A mark decides;
 * without one, text with a zero byte in most characters' high half is UTF-16 or UTF-32 (a CSV
 * file is mostly ASCII: separators, digits, e-mail addresses); otherwise bytes that are valid
 * UTF-8 are UTF-8 (plain ASCII included), and anything else is Windows-1252, which maps every
 * byte to a character (é, ü, ß, €, curly quotes), as Excel wrote it. UTF-32 is refused with
 * what to do instead: no spreadsheet saves it, and a file in it is almost always a mistake.
 */
export function detectEncoding(bytes: Uint8Array): { encoding: CsvEncoding; start: number } {
  const [b0, b1, b2, b3] = bytes;
  if (b0 === 0xff && b1 === 0xfe && b2 === 0 && b3 === 0) throw wideRefusal('UTF-32 (little-endian)');
  if (b0 === 0 && b1 === 0 && b2 === 0xfe && b3 === 0xff) throw wideRefusal('UTF-32 (big-endian)');
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf) {
    if (!isUtf8(bytes.subarray(3))) {
      throw new AppError('invalid_csv', `The file starts with a UTF-8 byte-order mark but is not valid UTF-8. ${saveAsUtf8}`);
    }
    return { encoding: 'utf-8', start: 3 };
  }
  if (b0 === 0xff && b1 === 0xfe) return { encoding: 'utf-16le', start: 2 };
  if (b0 === 0xfe && b1 === 0xff) return { encoding: 'utf-16be', start: 2 };
  const wide = wideWithoutMark(bytes);
  if (wide === 'utf-32le') throw wideRefusal('UTF-32 (little-endian)');
  if (wide === 'utf-32be') throw wideRefusal('UTF-32 (big-endian)');
  if (wide) return { encoding: wide, start: 0 };
  return { encoding: isUtf8(bytes) ? 'utf-8' : 'windows-1252', start: 0 };
}

const wideRefusal = (name: string) =>
  new AppError('invalid_csv', `The file is saved as ${name} text, which imports do not read. ${saveAsUtf8}`);

/**
 * UTF-16 or UTF-32 told by where zero bytes fall in the first 4 KiB: in UTF-16LE text mostly
 * ASCII, most odd bytes are zero and no even one; in UTF-32LE, the last two of every four. Bytes that are not
 * text have a zero byte about once in 256, far below these shares.
 */
function wideWithoutMark(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | 'utf-32le' | 'utf-32be' | null {
  const length = Math.min(bytes.length, 4096) & ~3;
  if (length < 4) return null;
  const zeros = [0, 0, 0, 0];
  for (let i = 0; i < length; i++) if (bytes[i] === 0) zeros[i & 3]!++;
  const [z0, z1, z2, z3] = zeros as [number, number, number, number];
  const quarter = length / 4;
  // UTF-32: the two high bytes of (nearly) every character zero, the lowest byte not.
  if (z2 > 0.9 * quarter && z3 > 0.9 * quarter && z0 < 0.1 * quarter) return 'utf-32le';
  if (z0 > 0.9 * quarter && z1 > 0.9 * quarter && z3 < 0.1 * quarter) return 'utf-32be';
  const even = z0 + z2;
  const odd = z1 + z3;
  if (odd > 0.5 * quarter && even < 0.1 * quarter) return 'utf-16le';
  if (even > 0.5 * quarter && odd < 0.1 * quarter) return 'utf-16be';
  return null;
}

/** The file's text as UTF-8 bytes, a chunk at a time (UTF-8 files are handed on as they are). */
function* utf8Chunks(bytes: Uint8Array, encoding: CsvEncoding, start: number): Generator<Uint8Array> {
  if (encoding === 'utf-8') {
    for (let i = start; i < bytes.length; i += CHUNK_BYTES) yield bytes.subarray(i, i + CHUNK_BYTES);
    return;
  }
  if (encoding === 'windows-1252') {
    for (let i = start; i < bytes.length; i += CHUNK_BYTES) {
      yield Buffer.from(decodeWindows1252(bytes.subarray(i, i + CHUNK_BYTES)), 'utf8');
    }
    return;
  }
  // UTF-16: a surrogate pair split between chunks waits in the decoder for its second half.
  const decoder = new TextDecoder('utf-16le');
  for (let i = start; i < bytes.length; i += CHUNK_BYTES) {
    let chunk = bytes.subarray(i, i + CHUNK_BYTES);
    if (encoding === 'utf-16be') {
      // Swapped in a copy (the request's bytes stay as sent); an odd last byte is no character.
      chunk = Buffer.from(chunk.subarray(0, chunk.length & ~1)).swap16();
    }
    yield Buffer.from(decoder.decode(chunk, { stream: true }), 'utf8');
  }
  yield Buffer.from(decoder.decode(), 'utf8');
}

/**
 * Decodes and parses a file within bounds, pausing between chunks. Refusals: `invalid_csv` (an
 * encoding it cannot read, broken quoting naming the row, a row or cell too long, no header),
 * `too_many_columns`, `too_many_rows` (more rows than any file may have), and the caller's
 * error for more people than `people.max`. Rows may be shorter than the header (missing cells
 * are empty) or longer (the extra cells have no column and are reported by the caller).
 */
export async function readCsvTable(bytes: Uint8Array, people: PeopleLimit): Promise<CsvTable> {
  const { encoding, start } = detectEncoding(bytes);
  const pause = timeSlices();
  let header: string[] | undefined;
  const rows: CsvTable['rows'] = [];
  const onRow = (cells: string[], row: number) => {
    if (row === 1) header = cells;
    else if (cells.some((cell) => cell.trim() !== '')) {
      if (rows.length === people.max) throw people.refuse();
      rows.push({ row, cells });
    }
  };
  // The header row is held until it ends, to find its separator, then parsed like the rest.
  let head: Uint8Array[] = [];
  let parser: CsvRowParser | undefined;
  let delimiter: CsvDelimiter = ',';
  const startParsing = (final: boolean) => {
    const held = Buffer.concat(head);
    const found = headerDelimiter(held, final);
    if (found === null) {
      if (held.length > MAX_CSV_ROW_BYTES) throw rowTooLong(1, MAX_CSV_ROW_BYTES, false);
      return;
    }
    delimiter = found;
    parser = new CsvRowParser(delimiter, BOUNDS, onRow);
    head = [];
    parser.push(held);
  };
  for (const chunk of utf8Chunks(bytes, encoding, start)) {
    if (parser) parser.push(chunk);
    else {
      head.push(chunk);
      startParsing(false);
    }
    await pause();
  }
  if (!parser) startParsing(true);
  parser?.end();
  if (!header || header.every((cell) => cell.trim() === '')) {
    throw new AppError('invalid_csv', 'The file is empty; it needs a header row naming the columns, then one row per person.');
  }
  return { encoding, delimiter, header: header.map((cell) => cell.trim()), rows };
}
