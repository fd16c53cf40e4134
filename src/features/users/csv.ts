/**
 * CSV import: a header row names the columns; each data row becomes the same object a JSON
 * batch would carry, so both go through the same checks. Empty cells mean "not given".
 */
import { parse } from 'csv-parse/sync';
import { AppError } from '../../errors.js';
import type { CustomField } from '../collections/schemas.js';

const STANDARD = ['email', 'first_name', 'last_name', 'display_name', 'external_id', 'phonetic_spelling'];
const REQUIRED = ['email', 'first_name', 'last_name'];

export function parseUsersCsv(text: string, definitions: CustomField[]): Record<string, unknown>[] {
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ''), {
      skip_empty_lines: true,
      relax_column_count: false,
      trim: false,
    });
  } catch (error) {
    throw new AppError('invalid_csv', `The CSV cannot be parsed: ${(error as Error).message}`);
  }
  const [header, ...rows] = records;
  if (!header) throw new AppError('invalid_csv', 'The CSV is empty; it needs a header row and at least one user.');
  const columns = header.map((name) => name.trim());
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  for (const name of columns) {
    if (!STANDARD.includes(name) && !byKey.has(name)) {
      throw new AppError('invalid_csv', `Unknown CSV column "${name}"; use ${STANDARD.join(', ')} or a custom field key.`, {
        param: name,
      });
    }
  }
  if (new Set(columns).size !== columns.length) throw new AppError('invalid_csv', 'The CSV header names a column twice.');
  for (const name of REQUIRED) {
    if (!columns.includes(name)) throw new AppError('invalid_csv', `The CSV header needs a "${name}" column.`, { param: name });
  }
  if (rows.length > 1000) {
    throw new AppError('parameter_invalid', `A batch holds at most 1000 users; this CSV has ${rows.length}.`, { param: 'users' });
  }
  return rows.map((row) => {
    const user: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    columns.forEach((name, i) => {
      const cell = row[i] ?? '';
      if (cell === '') return;
      const definition = byKey.get(name);
      if (definition) custom[name] = cellValue(definition, cell);
      else user[name] = cell;
    });
    if (Object.keys(custom).length > 0) user.custom_fields = custom;
    return user;
  });
}

/** Numbers and booleans arrive as text; anything unreadable stays text and fails the type check. */
function cellValue(definition: CustomField, cell: string): unknown {
  if (definition.type === 'number') {
    const value = Number(cell.trim());
    return cell.trim() !== '' && Number.isFinite(value) ? value : cell;
  }
  if (definition.type === 'boolean') {
    if (/^(true|yes|1)$/i.test(cell.trim())) return true;
    if (/^(false|no|0)$/i.test(cell.trim())) return false;
  }
  return cell;
}
