/**
 * CSV for spreadsheets (RFC 4180 with CRLF line ends), safe whatever list separator the
 * spreadsheet uses and whatever people typed (OWASP "CSV injection"):
 * - every cell is quoted, so a value holding `;` or a tab stays one cell in a spreadsheet whose
 *   locale separates lists with `;` (Excel in much of Europe) or that splits on tabs; unquoted,
 *   `Ada;=cmd|…` became a second cell starting a formula;
 * - a cell whose first non-space character starts a formula (`=`, `+`, `-`, `@`, a tab, a
 *   carriage return, or their full-width and small forms `＝ ＋ － ＠ ﹦ ﹢ ﹣ ﹫`, which some
 *   spreadsheets read as the ASCII ones) gets a leading apostrophe, so it is shown as text.
 *   Leading spaces count as nothing: spreadsheets skip them before looking for a formula.
 */

/** Makes the UTF-8 file open with the right characters in Excel, which otherwise guesses a legacy code page. */
export const UTF8_BOM = '\uFEFF';

/** Whitespace (other than tab and CR, which are triggers themselves), then a formula trigger. */
const FORMULA_START = /^[^\S\t\r]*[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/u;

/** One cell: inert against formulas, always quoted. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '""';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** What separates cells: a comma (RFC 4180), or a semicolon, what Excel expects where a comma is the decimal mark. */
export type CsvSeparator = ',' | ';';

/** One line of cells, ended by CRLF. */
export const csvLine = (
  cells: readonly (string | number | boolean | null | undefined)[],
  separator: CsvSeparator = ',',
): string => `${cells.map(csvCell).join(separator)}\r\n`;
