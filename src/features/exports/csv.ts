/**
 * CSV for spreadsheets (RFC 4180 with CRLF line ends). Every cell that a spreadsheet would read
 * as a formula (it begins with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading
 * apostrophe, so a name like `=HYPERLINK(…)` typed into a recorder form is shown as text when
 * an organiser opens the export in Excel, LibreOffice or Google Sheets (OWASP "CSV injection").
 */

/** Makes the UTF-8 file open with the right characters in Excel, which otherwise guesses a legacy code page. */
export const UTF8_BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: inert against formulas, quoted when it holds a comma, quote or line break. */
export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of cells, ended by CRLF. */
export const csvLine = (cells: readonly (string | number | boolean | null | undefined)[]): string =>
  `${cells.map(csvCell).join(',')}\r\n`;
