/**
 * One row of a people file as the import reads it (its cells by field) and as it will be
 * stored (a new person, or the matched person with the file's values), with every problem of
 * the row reported against the file's own column headings.
 */
import type { RowError } from '../../errors.js';
import { compileReportingAll, validationError } from '../../http/validation.js';
import { newId } from '../../lib/ids.js';
import type { CustomField } from '../collections/schemas.js';
import { type ColumnPlan, customCellValue, STANDARD_FIELDS, type StandardField } from './csv-columns.js';
import type { FieldSource } from './provenance.js';
import type { UserRow } from './repo.js';
import { CreateUserBody } from './schemas.js';
import { canonicalLanguage } from '../../lib/languages.js';
import { isDefaultDisplayName, looksFamilyNameFirst, type NameOrder, nameOrderOf } from '../../lib/name-order.js';
import { defaultDisplayName, newRecordToken, optionalText } from './service.js';
import {
  type CustomValues,
  checkCustomValues,
  LANGUAGE_FIELDS,
  languageIssue,
  normalizeUserEmail,
  personLanguageIssue,
  personLanguageOf,
} from './validate.js';

export type CellValue = string | number | boolean;

/** One data row as read: the standard fields' cells (trimmed, absent when the file has no column) and custom values. */
export interface ReadRow {
  row: number;
  fields: Partial<Record<StandardField, string>>;
  /** Custom field values by key; null = empty cell (clears the value of a matched person). */
  custom: Record<string, CellValue | null>;
  emailNormalized: string | null;
}

/** Where and for whom the rows are written. */
export interface WriteContext {
  collectionId: string;
  now: string;
  writer: FieldSource;
  overwritePersonEdits: boolean;
  /** The file's name order, for rows without a `name_order` cell. */
  nameOrder: NameOrder;
}

const validateShape = compileReportingAll(CreateUserBody);
const MESSAGES_FOR_MISSING: Partial<Record<string, string>> = {
  email: 'is empty; every person needs an e-mail address',
  first_name: 'is empty; every person needs a first name',
};

/** The cells of one row by field: trimmed, with empty custom cells as null. */
export function readRow(plan: ColumnPlan, row: number, cells: string[]): ReadRow {
  const fields: ReadRow['fields'] = {};
  const custom: ReadRow['custom'] = {};
  for (const column of plan.columns) {
    const cell = (cells[column.index] ?? '').trim();
    if (column.target.kind === 'standard') fields[column.target.field] = cell;
    else custom[column.target.definition.key] = cell === '' ? null : customCellValue(column.target.definition, cell);
  }
  const email = fields.email ? normalizeUserEmail(fields.email) : null;
  return { row, fields, custom, emailNormalized: email && 'ok' in email ? email.ok : null };
}

/** The row as it will be stored (a new person, or `target` with the file's values), or null when it has errors. */
export function buildUser(
  read: ReadRow,
  target: UserRow | undefined,
  definitions: CustomField[],
  plan: ColumnPlan,
  context: WriteContext,
  issues: RowError[],
): UserRow | null {
  const { fields } = read;
  const given = (field: StandardField) => (fields[field] === undefined || fields[field] === '' ? undefined : fields[field]);
  const shape: Record<string, unknown> = {};
  for (const field of STANDARD_FIELDS) {
    const value = given(field);
    if (value !== undefined) shape[field] = value;
  }
  shape.custom_fields = Object.fromEntries(Object.entries(read.custom).filter(([, v]) => v !== null));
  const before = issues.length;
  if (!validateShape(shape)) {
    const seen = new Set<string>();
    for (const error of validateShape.errors ?? []) {
      const problem = validationError([error], 'body');
      const param = problem.param ?? 'body';
      if (seen.has(param)) continue;
      seen.add(param);
      const field = param.startsWith('custom_fields.')
        ? { custom: param.slice('custom_fields.'.length) }
        : (param as StandardField);
      const column = plan.columnOf(field);
      const missing = problem.code === 'parameter_missing' ? MESSAGES_FOR_MISSING[param] : undefined;
      issues.push({
        row: read.row,
        column,
        code: String(problem.code),
        message: missing ? `"${column}" ${missing}.` : problem.message.replace(`field "${param}"`, `"${column}"`),
      });
    }
  }
  if (fields.email && read.emailNormalized === null && !issues.some((i) => i.column === plan.columnOf('email'))) {
    issues.push({
      row: read.row,
      column: plan.columnOf('email'),
      code: 'parameter_invalid',
      message: `"${fields.email}" is not a valid e-mail address.`,
    });
  }
  const languageProblem = personLanguageIssue(fields.language);
  if (languageProblem && !issues.some((i) => i.column === plan.columnOf('language'))) {
    const column = plan.columnOf('language');
    const message = languageProblem.message.replace('field "language"', `"${column}"`);
    issues.push({ row: read.row, column, code: languageProblem.code, message });
  }
  // A name's language the pattern lets through but Intl rejects ("en-US-US") is an error, as in
  // the API: stored as null it would silently drop what the file said.
  for (const field of LANGUAGE_FIELDS) {
    const problem = languageIssue(fields[field], field);
    const column = plan.columnOf(field);
    if (!problem || issues.some((i) => i.column === column)) continue;
    issues.push({
      row: read.row,
      column,
      code: problem.code,
      message: problem.message.replace(`field "${field}"`, `"${column}"`),
    });
  }
  // Custom values: the file's columns over the person's current values; empty cells remove.
  const current = target ? (JSON.parse(target.custom_fields) as CustomValues) : {};
  const changes = target ? read.custom : Object.fromEntries(Object.entries(read.custom).filter(([, v]) => v !== null));
  const custom = checkCustomValues(definitions, current, changes);
  for (const problem of custom.issues) {
    const key = problem.field.slice('custom_fields.'.length);
    const column = plan.columnOf({ custom: key });
    if (issues.some((i) => i.column === column)) continue;
    issues.push({ row: read.row, column, code: problem.code, message: problem.message });
  }
  if (issues.length > before) return null;

  // The validated values: names now in NFC (the schema's keyword composes them in place).
  const value = (field: StandardField) => shape[field] as string | undefined;
  const has = (field: StandardField) => fields[field] !== undefined;
  const firstName = value('first_name') as string;
  const lastName = has('last_name') ? (value('last_name') ?? '') : (target?.last_name ?? '');
  let displayName: string;
  if (value('display_name') !== undefined) displayName = value('display_name') as string;
  else if (has('display_name') || !target || isDefaultDisplayName(target.display_name, target.first_name, target.last_name)) {
    // An empty display name cell, a new person, or one whose display name was the default.
    displayName = defaultDisplayName(firstName, lastName, rowNameOrder(value('name_order'), target, context.nameOrder));
  } else displayName = target.display_name;
  const optional = (field: 'preferred_name' | 'pronouns' | 'phonetic_spelling') =>
    has(field) ? optionalText(value(field)) : (target?.[field] ?? null);
  const language = (field: 'name_language' | 'given_name_language' | 'family_name_language') =>
    has(field) ? canonicalLanguage(value(field)) : (target?.[field] ?? null);
  return {
    id: target?.id ?? newId(),
    collection_id: context.collectionId,
    email: value('email') as string,
    email_normalized: read.emailNormalized as string,
    first_name: firstName,
    last_name: lastName,
    display_name: displayName,
    preferred_name: optional('preferred_name'),
    pronouns: optional('pronouns'),
    external_id: value('external_id') ?? target?.external_id ?? null,
    phonetic_spelling: optional('phonetic_spelling'),
    name_language: language('name_language'),
    given_name_language: language('given_name_language'),
    family_name_language: language('family_name_language'),
    language: has('language') ? personLanguageOf(value('language')) : (target?.language ?? null),
    custom_fields: JSON.stringify(custom.values),
    record_token: target?.record_token ?? newRecordToken(),
    recording_status: target?.recording_status ?? 'none',
    review_note: target?.review_note ?? null,
    listened_at: target?.listened_at ?? null,
    listened_by: target?.listened_by ?? null,
    // The file's order: people created by one import share `created_at` (see below).
    import_position: target?.import_position ?? read.row,
    mail_status: target?.mail_status ?? null,
    mail_error: target?.mail_error ?? null,
    mail_updated_at: target?.mail_updated_at ?? null,
    invited_at: target?.invited_at ?? null,
    unsubscribed_at: target?.unsubscribed_at ?? null,
    field_sources: target?.field_sources ?? '{}',
    created_at: target?.created_at ?? context.now,
    updated_at: target ? later(context.now, target.updated_at) : context.now,
  };
}

/**
 * The order of a row's default display name: the row's `name_order` cell, else family first when
 * the file says so, else the order the matched person's display name already has (a re-import
 * without the option does not turn 张伟 back into 伟 张), else given first.
 */
function rowNameOrder(cell: string | undefined, target: UserRow | undefined, fileOrder: NameOrder): NameOrder {
  if (cell !== undefined) return cell as NameOrder;
  if (fileOrder === 'family_first' || !target) return fileOrder;
  return nameOrderOf(target.display_name, target.first_name, target.last_name);
}

/**
 * Whether the preview should offer the family-first order for this row: its names look
 * family-name-first (script or name language) yet its display name is composed given name
 * first, and neither the file nor the person wrote that display name.
 */
export function composedGivenFirstOfFamilyFirstName(read: ReadRow, user: UserRow, kept: readonly string[]): boolean {
  if (read.fields.display_name || kept.includes('display_name') || user.last_name === '') return false;
  if (user.display_name !== defaultDisplayName(user.first_name, user.last_name)) return false;
  if (user.display_name === defaultDisplayName(user.first_name, user.last_name, 'family_first')) return false;
  return looksFamilyNameFirst({
    first: user.first_name,
    last: user.last_name,
    languages: [user.name_language, user.given_name_language, user.family_name_language],
  });
}

/** `now`, or a millisecond after `previous` when the clock has not passed it (updated_at always moves forward). */
const later = (now: string, previous: string) => (now > previous ? now : new Date(Date.parse(previous) + 1).toISOString());
