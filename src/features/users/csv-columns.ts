/**
 * Which CSV column fills which user field. Names are compared without case, spaces,
 * underscores, hyphens and dots ("First Name", "first_name", "FIRSTNAME" and "E-mail" all
 * match), through a small alias table; then a collection's custom field matches by its key or
 * its label. Anything else is an unknown column: the import ignores it with a warning, the
 * JSON-shaped batch endpoint refuses it.
 */
import type { CustomField } from '../collections/schemas.js';

export const STANDARD_FIELDS = [
  'email',
  'first_name',
  'last_name',
  'display_name',
  'preferred_name',
  'pronouns',
  'external_id',
  'phonetic_spelling',
  'name_language',
  'given_name_language',
  'family_name_language',
  'language',
  // How this row's default display name is composed (`given_first`, `family_first`); not stored.
  'name_order',
] as const;
export type StandardField = (typeof STANDARD_FIELDS)[number];

/** Besides the field's own name, the headings spreadsheets commonly use. Kept short on purpose. */
export const COLUMN_ALIASES: Record<StandardField, string[]> = {
  email: ['e-mail', 'email address', 'e-mail address', 'mail'],
  first_name: ['first', 'given name', 'forename'],
  last_name: ['last', 'surname', 'family name'],
  display_name: ['full name'],
  preferred_name: ['known as', 'nickname'],
  pronouns: ['pronoun'],
  external_id: ['external id'],
  phonetic_spelling: ['phonetic', 'pronunciation'],
  name_language: ['name language'],
  given_name_language: ['given name language', 'first name language'],
  family_name_language: ['family name language', 'surname language', 'last name language'],
  // The person's own language (their mail and record page); the name's language is `name_language`.
  language: ['preferred language', 'mail language', 'locale'],
  name_order: ['name order'],
};

/** Columns every file must have. */
export const REQUIRED_COLUMNS: StandardField[] = ['email', 'first_name'];

export const normalizeColumnName = (name: string) =>
  name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s_\-.]+/g, '');

const standardByName = new Map<string, StandardField>(
  STANDARD_FIELDS.flatMap((field) =>
    [field, ...COLUMN_ALIASES[field]].map((name) => [normalizeColumnName(name), field] as const),
  ),
);

export type ColumnTarget = { kind: 'standard'; field: StandardField } | { kind: 'custom'; definition: CustomField };

export interface PlannedColumn {
  index: number;
  /** The heading as written in the file (what error messages call the column). */
  header: string;
  target: ColumnTarget;
}

export interface HeaderProblem {
  column: string;
  code: 'column_duplicate' | 'column_missing' | 'column_unknown';
  message: string;
}

export interface ColumnPlan {
  columns: PlannedColumn[];
  /** Columns that fill nothing (with their index, for "had values" checks). */
  unknown: { index: number; header: string }[];
  /** Problems that make the file unusable: a required column missing, two columns for one field. */
  problems: HeaderProblem[];
  /** The heading that fills each field, for error messages (the field name when no column does). */
  columnOf(target: StandardField | { custom: string }): string;
  /** Where a heading stands in the file (headings not in the file sort last). */
  positionOf(header: string): number;
}

/** Maps each heading to a field; blank headings are unknown columns without a name. */
export function planColumns(header: string[], definitions: CustomField[]): ColumnPlan {
  const customByName = new Map<string, CustomField>();
  // Labels first, keys second: a key wins over another field's label of the same spelling.
  for (const definition of definitions) customByName.set(normalizeColumnName(definition.label), definition);
  for (const definition of definitions) customByName.set(normalizeColumnName(definition.key), definition);
  const columns: PlannedColumn[] = [];
  const unknown: ColumnPlan['unknown'] = [];
  const problems: HeaderProblem[] = [];
  const byTarget = new Map<string, PlannedColumn>();
  header.forEach((heading, index) => {
    const name = normalizeColumnName(heading);
    const standard = standardByName.get(name);
    const custom = standard ? undefined : customByName.get(name);
    const target: ColumnTarget | undefined = standard
      ? { kind: 'standard', field: standard }
      : custom
        ? { kind: 'custom', definition: custom }
        : undefined;
    if (!target || name === '') {
      unknown.push({ index, header: heading });
      return;
    }
    const id = target.kind === 'standard' ? target.field : `custom:${target.definition.key}`;
    const earlier = byTarget.get(id);
    if (earlier) {
      problems.push({
        column: heading,
        code: 'column_duplicate',
        message: `Columns "${earlier.header}" and "${heading}" both fill ${describeTarget(target)}; keep one of them.`,
      });
      return;
    }
    const planned = { index, header: heading, target };
    byTarget.set(id, planned);
    columns.push(planned);
  });
  for (const field of REQUIRED_COLUMNS) {
    if (!byTarget.has(field)) {
      problems.push({
        column: field,
        code: 'column_missing',
        message: `The header row needs a "${field}" column (${[field, ...COLUMN_ALIASES[field]].map((n) => `"${n}"`).join(', ')} are recognised).`,
      });
    }
  }
  return {
    columns,
    unknown,
    problems,
    columnOf(target) {
      if (typeof target === 'string') return byTarget.get(target)?.header ?? target;
      const planned = byTarget.get(`custom:${target.custom}`);
      return planned?.header ?? definitions.find((d) => d.key === target.custom)?.label ?? target.custom;
    },
    positionOf(heading) {
      const index = header.indexOf(heading);
      return index === -1 ? header.length : index;
    },
  };
}

function describeTarget(target: ColumnTarget): string {
  return target.kind === 'standard' ? `"${target.field}"` : `the custom field "${target.definition.key}"`;
}

/**
 * A custom field's cell as the value its type takes: numbers (a decimal comma too, as
 * semicolon-separated files write them) and yes/no booleans; anything unreadable stays text and
 * fails the type check with the field's own message.
 */
export function customCellValue(definition: CustomField, cell: string): string | number | boolean {
  const text = cell.trim();
  if (definition.type === 'number') {
    const value = Number(/^-?\d+,\d+$/.test(text) ? text.replace(',', '.') : text);
    return text !== '' && Number.isFinite(value) ? value : cell;
  }
  if (definition.type === 'boolean') {
    if (/^(true|yes|y|1)$/i.test(text)) return true;
    if (/^(false|no|n|0)$/i.test(text)) return false;
  }
  return text;
}

/**
 * How many cells of each unknown column hold something (for the warnings), and the most cells
 * any row has: one pass, pausing as it goes (200 columns by 10,000 rows is two million cells).
 */
export async function countCells(
  rows: { cells: string[] }[],
  plan: ColumnPlan,
  pause: () => Promise<void>,
): Promise<{ filledByColumn: number[]; widest: number }> {
  const filledByColumn = plan.unknown.map(() => 0);
  let widest = 0;
  for (const { cells } of rows) {
    await pause();
    if (cells.length > widest) widest = cells.length;
    plan.unknown.forEach(({ index }, u) => {
      if ((cells[index] ?? '').trim() !== '') filledByColumn[u]!++;
    });
  }
  return { filledByColumn, widest };
}
