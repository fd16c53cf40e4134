/**
 * A CSV parser for files read a chunk at a time, that refuses a file at the first byte breaking a
 * bound (a row's length, its number of cells, the number of rows) before it parses or keeps
 * more. It reads RFC 4180 strictly, as the import always has: a quoted cell may hold separators,
 * line breaks and doubled quotes; a quote anywhere else is an error naming the row. Rows end
 * with CR LF, LF or CR outside quotes; a blank line is a row of one empty cell.
 *
 * Our own rather than csv-parse's: csv-parse builds an error object (message, context) for every
 * row whose length differs from the first, even when told to accept it, which made a file of
 * short rows stall the event loop for seconds (per-row cost: docs/performance.md).
 */
import { AppError } from '../../errors.js';

export type CsvDelimiter = ',' | ';' | '\t';

export interface RowBounds {
  maxColumns: number;
  maxRowBytes: number;
  maxRows: number;
  maxCellChars: number;
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Where the parser is: before the first byte of a cell, in an unquoted or a quoted one, or on a
 * quote inside a quoted cell (the closing one, or the first of a doubled pair). */
const Mode = { CellStart: 0, Unquoted: 1, Quoted: 2, QuoteInQuoted: 3 } as const;
type Mode = (typeof Mode)[keyof typeof Mode];

export class CsvRowParser {
  private mode: Mode = Mode.CellStart;
  /** The previous byte ended a row with CR: a LF right after it belongs to the same line end. */
  private afterCr = false;
  /** The spreadsheet number of the row being read (the header is 1). */
  private row = 1;
  private rowBytes = 0;
  private cells: string[] = [];
  /** The current cell's bytes from earlier chunks; whether it was quoted and holds doubled quotes. */
  private parts: Uint8Array[] = [];
  private quotedCell = false;
  private doubledQuotes = false;
  private readonly delimiter: number;

  constructor(
    delimiter: CsvDelimiter,
    private readonly bounds: RowBounds,
    private readonly onRow: (cells: string[], row: number) => void,
  ) {
    this.delimiter = delimiter.charCodeAt(0);
  }

  /** Parses the next UTF-8 bytes, handing on each row as it ends. */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let cellStart = 0;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i] as number;
      if (this.afterCr) {
        this.afterCr = false;
        if (byte === LF) continue;
      }
      if (++this.rowBytes > this.bounds.maxRowBytes) {
        throw rowTooLong(this.row, this.bounds.maxRowBytes, this.mode === Mode.Quoted);
      }
      switch (this.mode) {
        case Mode.Quoted:
          if (byte === QUOTE) this.mode = Mode.QuoteInQuoted;
          break;
        case Mode.QuoteInQuoted:
          if (byte === QUOTE) {
            this.doubledQuotes = true;
            this.mode = Mode.Quoted;
            break;
          }
          if (byte !== this.delimiter && byte !== LF && byte !== CR) {
            throw unreadable(this.row, 'a quoted cell must end with its quote (write a quote inside one as "")');
          }
          this.endCell(bytes, cellStart, i);
          if (byte !== this.delimiter) this.endRow(byte);
          continue;
        case Mode.Unquoted:
          if (byte === this.delimiter || byte === LF || byte === CR) {
            this.endCell(bytes, cellStart, i);
            if (byte !== this.delimiter) this.endRow(byte);
            continue;
          }
          if (byte === QUOTE) {
            throw unreadable(this.row, 'a quote inside a cell that does not start with one (put the whole cell in quotes)');
          }
          break;
        case Mode.CellStart:
          if (byte === this.delimiter || byte === LF || byte === CR) {
            this.cells.push('');
            this.countCell();
            if (byte !== this.delimiter) this.endRow(byte);
            continue;
          }
          this.quotedCell = byte === QUOTE;
          this.doubledQuotes = false;
          this.mode = this.quotedCell ? Mode.Quoted : Mode.Unquoted;
          cellStart = this.quotedCell ? i + 1 : i;
          break;
      }
    }
    if (this.mode !== Mode.CellStart) this.parts.push(bytes.subarray(cellStart));
  }

  /** After the last chunk: the last row, when the file does not end with a line break. */
  end(): void {
    if (this.mode === Mode.Quoted) throw unreadable(this.row, 'a quoted cell is never closed');
    if (this.mode === Mode.CellStart && this.cells.length === 0) return;
    if (this.mode === Mode.CellStart) {
      this.cells.push('');
      this.countCell();
    } else this.endCell(Buffer.alloc(0), 0, 0);
    this.endRow(LF);
  }

  private endCell(bytes: Buffer, start: number, end: number): void {
    let text =
      this.parts.length === 0
        ? bytes.toString('utf8', start, end)
        : Buffer.concat([...this.parts, bytes.subarray(start, end)]).toString('utf8');
    this.parts = [];
    if (this.quotedCell) {
      text = text.slice(0, -1); // the closing quote
      if (this.doubledQuotes) text = text.replaceAll('""', '"');
    }
    if (text.length > this.bounds.maxCellChars) {
      throw new AppError(
        'invalid_csv',
        `Row ${this.row}, column ${this.cells.length + 1} has more than ${this.bounds.maxCellChars.toLocaleString('en')} characters, the most a cell may hold.`,
      );
    }
    this.cells.push(text);
    this.countCell();
    this.mode = Mode.CellStart;
  }

  private countCell(): void {
    if (this.cells.length > this.bounds.maxColumns) throw tooManyColumns(this.row, this.bounds.maxColumns);
  }

  private endRow(lineEnd: number): void {
    const cells = this.cells;
    this.cells = [];
    this.mode = Mode.CellStart;
    this.afterCr = lineEnd === CR;
    this.rowBytes = 0;
    this.onRow(cells, this.row);
    this.row++;
    if (this.row > this.bounds.maxRows) throw tooManyRowsOfAnyKind(this.bounds.maxRows);
  }
}

/**
 * The separator the header row uses most outside quotes (a comma when it names one column), from
 * its first bytes; `null` while the header row has not ended within them.
 */
export function headerDelimiter(head: Uint8Array, final: boolean): CsvDelimiter | null {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  let ended = final;
  for (const byte of head) {
    if (byte === QUOTE) quoted = !quoted;
    else if (!quoted && (byte === LF || byte === CR)) {
      ended = true;
      break;
    } else if (!quoted && byte === 0x2c) counts[',']++;
    else if (!quoted && byte === 0x3b) counts[';']++;
    else if (!quoted && byte === 0x09) counts['\t']++;
  }
  if (!ended) return null;
  const best = (Object.entries(counts) as [CsvDelimiter, number][]).sort((a, b) => b[1] - a[1])[0];
  return best && best[1] > 0 ? best[0] : ',';
}

const unreadable = (row: number, problem: string) =>
  new AppError('invalid_csv', `The file cannot be read as CSV: row ${row} has ${problem}.`);

const tooManyColumns = (row: number, max: number) =>
  new AppError(
    'too_many_columns',
    `Row ${row} has more than ${max} cells; a file may have at most ${max} columns. Remove the columns you do not import.`,
  );

export const rowTooLong = (row: number, max: number, quoted: boolean) =>
  new AppError(
    'invalid_csv',
    `Row ${row} is longer than ${max / 1024} KiB, the most a row may hold` +
      (quoted ? '; a quote opened in it may never be closed.' : '. Is the file a CSV file with one person per line?'),
  );

const tooManyRowsOfAnyKind = (max: number) =>
  new AppError(
    'too_many_rows',
    `The file has more than ${max.toLocaleString('en')} rows, blank ones included; remove the blank rows or split the file.`,
  );
