/**
 * CSV for the batch endpoint: a header row names the columns (matched like the import's, see
 * csv-columns.ts); each data row becomes the same object a JSON batch would carry, so both go
 * through the same checks. Stricter than the import: an unknown column or a ragged row refuses
 * the file. Empty cells mean "not given".
 */
import { AppError } from '../../errors.js';
import { mapInSlices } from '../../lib/time-slices.js';
import type { CustomField } from '../collections/schemas.js';
import { customCellValue, planColumns } from './csv-columns.js';
import { readCsvTable } from './csv-file.js';
import { MAX_BATCH_USERS } from './schemas.js';

export async function parseUsersCsv(bytes: Uint8Array, definitions: CustomField[]): Promise<Record<string, unknown>[]> {
  // Reading stops at the first user past the limit: a longer file is refused without being read.
  const table = await readCsvTable(bytes, {
    max: MAX_BATCH_USERS,
    refuse: () =>
      new AppError('parameter_invalid', `A batch holds at most ${MAX_BATCH_USERS} users; this CSV has more.`, {
        param: 'users',
      }),
  });
  const plan = planColumns(table.header, definitions);
  const [problem] = plan.problems;
  if (problem) throw new AppError('invalid_csv', problem.message, { param: problem.column });
  const [unknown] = plan.unknown;
  if (unknown) {
    throw new AppError(
      'invalid_csv',
      `Unknown CSV column "${unknown.header}"; use email, first_name, last_name, display_name, preferred_name, pronouns, external_id, phonetic_spelling, name_language, given_name_language, family_name_language, language, name_order or a custom field key.`,
      { param: unknown.header },
    );
  }
  const ragged = table.rows.find((r) => r.cells.length !== table.header.length);
  if (ragged) {
    throw new AppError(
      'invalid_csv',
      `Row ${ragged.row} has ${ragged.cells.length} cells but the header has ${table.header.length} columns.`,
    );
  }
  return mapInSlices(table.rows, ({ cells }) => {
    const user: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    for (const column of plan.columns) {
      const cell = cells[column.index] ?? '';
      if (cell === '') continue;
      if (column.target.kind === 'custom') custom[column.target.definition.key] = customCellValue(column.target.definition, cell);
      else user[column.target.field] = cell;
    }
    if (Object.keys(custom).length > 0) user.custom_fields = custom;
    return user;
  });
}
