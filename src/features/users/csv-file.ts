/**
 * Reading a people file as spreadsheets write it: UTF-8 with or without a byte-order mark, the
 * UTF-16 "Unicode text" Excel saves, and the Windows-1252 files Excel writes in many locales,
 * separated by commas, semicolons (locales with a decimal comma) or tabs. Rows keep the number
 * a spreadsheet shows (header = row 1, blank lines count), so errors point at the right row.
 */
import { parse } from 'csv-parse/sync';
import { AppError } from '../../errors.js';

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'windows-1252';
export type CsvDelimiter = ',' | ';' | '\t';

export interface CsvTable {
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  /** The header cells as written (trimmed). */
  header: string[];
  /** Data rows that have at least one non-empty cell, with their spreadsheet row number. */
  rows: { row: number; cells: string[] }[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf16le = new TextDecoder('utf-16le');

/**
 * Windows-1252's characters for bytes 0x80-0x9F (the rest is Latin-1). Node's TextDecoder
 * answers "windows-1252" with Latin-1, which turns the euro sign and curly quotes into C1
 * controls; the five unassigned bytes stay controls, as the WHATWG table has them.
 */
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

function decodeWindows1252(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    text += String.fromCharCode(...chunk.map((b) => b)).replace(
      /[\u0080-\u009f]/g,
      (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] as string,
    );
  }
  return text;
}

/**
 * Bytes to text. A UTF-8 or UTF-16LE byte-order mark decides; otherwise bytes that are valid
 * UTF-8 are UTF-8 (plain ASCII included), and anything else is read as Windows-1252, which maps
 * every byte to a character (é, ü, ß, €, curly quotes), as Excel wrote it.
 */
export function decodeCsvBytes(bytes: Uint8Array): { text: string; encoding: CsvEncoding } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: decodeUtf8(bytes.subarray(3)), encoding: 'utf-8' };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: utf16le.decode(bytes.subarray(2)), encoding: 'utf-16le' };
  try {
    return { text: utf8.decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new AppError(
      'invalid_csv',
      'The file starts with a UTF-8 byte-order mark but is not valid UTF-8; save it again as "CSV UTF-8".',
    );
  }
}

/** The separator the header row uses most, outside quotes (a comma when it names one column). */
export function detectDelimiter(text: string): CsvDelimiter {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && (c === ',' || c === ';' || c === '\t')) counts[c]++;
  }
  const best = (Object.entries(counts) as [CsvDelimiter, number][]).sort((a, b) => b[1] - a[1])[0];
  return best && best[1] > 0 ? best[0] : ',';
}

/**
 * Decodes and parses a whole file. Quoting errors are a 400 `invalid_csv` naming the line;
 * rows may be shorter than the header (missing cells are empty) or longer (the extra cells
 * have no column and are reported by the caller).
 */
export function readCsvTable(bytes: Uint8Array): CsvTable {
  const { text, encoding } = decodeCsvBytes(bytes);
  const delimiter = detectDelimiter(text);
  let records: string[][];
  try {
    records = parse(text, {
      delimiter,
      skip_empty_lines: false,
      relax_column_count: true,
      relax_quotes: false,
      trim: false,
    });
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw new AppError(
      'invalid_csv',
      `The file cannot be read as CSV${line ? ` (near line ${line})` : ''}: ${(error as Error).message}`,
    );
  }
  const [header, ...data] = records;
  if (!header || header.every((cell) => cell.trim() === '')) {
    throw new AppError('invalid_csv', 'The file is empty; it needs a header row naming the columns, then one row per person.');
  }
  const rows: CsvTable['rows'] = [];
  data.forEach((cells, i) => {
    if (cells.some((cell) => cell.trim() !== '')) rows.push({ row: i + 2, cells });
  });
  return { encoding, delimiter, header: header.map((cell) => cell.trim()), rows };
}
