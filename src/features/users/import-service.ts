/**
 * CSV import an organiser can use: the file as a spreadsheet saved it, every problem of every
 * row in one answer, and re-imports that update people instead of failing on them.
 *
 * A row is matched to a person of the collection by `external_id`, else by e-mail (a person
 * found by e-mail who already has another external_id is a conflict, not a match). A matched
 * person gets the row's values for the columns the file has: an empty cell clears that field
 * (`external_id` excepted: an empty cell keeps it); fields without a column keep their values.
 * A row whose values equal the stored ones is `unchanged` and not written.
 */
import { AppError, type RowError } from '../../errors.js';
import { compileReportingAll, validationError } from '../../http/validation.js';
import { newId } from '../../lib/ids.js';
import { unsafeTextReason } from '../../lib/text.js';
import { mapInSlices, timeSlices } from '../../lib/time-slices.js';
import { withTransaction } from '../../db/transaction.js';
import type { CustomField } from '../collections/schemas.js';
import { adjustMemberCount, requireLiveCollection } from '../collections/service.js';
import { invalidateAllPlayLinks, invalidatePlayLinksOfUser } from '../play-links/index.js';
import { type ColumnPlan, countCells, customCellValue, planColumns, STANDARD_FIELDS, type StandardField } from './csv-columns.js';
import { readCsvTable } from './csv-file.js';
import { findUsersByIdentifiers, insertUsers, uniqueViolation, updateUserRows, type UserRow } from './repo.js';
import { type FieldSource, parseSources, stampSources, type TrackedField, writtenByPerson } from './provenance.js';
import {
  CreateUserBody,
  IMPORT_PREVIEW_ROWS,
  type ImportFieldChange,
  type ImportPersonEdit,
  type ImportMode,
  type ImportPreviewRow,
  type ImportReport,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
} from './schemas.js';
import { changedFields, defaultDisplayName, newRecordToken, optionalText, type UsersDeps } from './service.js';
import { type CustomValues, checkCustomValues, normalizeUserEmail } from './validate.js';

export interface ImportOptions {
  mode?: ImportMode;
  dryRun?: boolean;
  /** Replace values the person set themselves too (the organiser's explicit choice for this import). */
  overwritePersonEdits?: boolean;
  /** Who the import writes for: the organiser's file, or an integration's roster sync. */
  writer?: FieldSource;
}

type CellValue = string | number | boolean;

/** One data row as read: the standard fields' cells (trimmed, absent when the file has no column) and custom values. */
interface ReadRow {
  row: number;
  fields: Partial<Record<StandardField, string>>;
  /** Custom field values by key; null = empty cell (clears the value of a matched person). */
  custom: Record<string, CellValue | null>;
  emailNormalized: string | null;
}

type Outcome =
  | { row: number; action: 'create' | 'update' | 'unchanged'; user: UserRow; changes: ImportFieldChange[]; kept: string[] }
  | { row: number; action: 'error'; read: ReadRow };

interface WriteContext {
  collectionId: string;
  now: string;
  writer: FieldSource;
  overwritePersonEdits: boolean;
}

const validateShape = compileReportingAll(CreateUserBody);
const MESSAGES_FOR_MISSING: Partial<Record<string, string>> = {
  email: 'is empty; every person needs an e-mail address',
  first_name: 'is empty; every person needs a first name',
};

/**
 * Imports a people file into the collection (see the module comment for matching). Throws
 * `payload_too_large` (413) beyond 5 MB, `invalid_csv` (400) for an unreadable file or header
 * (missing `email` / `first_name` column, two columns for one field: `errors` lists them at row
 * 1; a row, cell or file beyond the bounds every CSV keeps, see csv-file.ts), `too_many_columns`
 * (400) beyond 200 columns, `too_many_rows` (400) beyond 10,000 people (read no further), and in
 * `all_or_nothing` mode `import_invalid`
 * (400, nothing written) with every row problem in `errors`. Otherwise the report: counts,
 * every row problem, warnings (ignored columns), and for dry runs a preview of the first rows.
 * Dry runs count what the valid rows would do and write nothing. Writes are one transaction.
 */
export async function importUsersCsv(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  bytes: Uint8Array,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const mode = options.mode ?? 'all_or_nothing';
  const dryRun = options.dryRun ?? false;
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (bytes.byteLength > MAX_IMPORT_BYTES) {
    throw new AppError('payload_too_large', `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB.`);
  }
  const definitions = JSON.parse(collection.custom_fields) as CustomField[];
  // Reading stops at the first person past the limit: a longer file is refused without being read.
  const table = await readCsvTable(bytes, {
    max: MAX_IMPORT_ROWS,
    refuse: () =>
      new AppError(
        'too_many_rows',
        `A file holds at most ${MAX_IMPORT_ROWS.toLocaleString('en')} people; this one has more. Split it in parts.`,
      ),
  });
  const plan = planColumns(table.header, definitions);
  const pause = timeSlices();
  const { filledByColumn, widest } = await countCells(table.rows, plan, pause);
  const warnings: RowError[] = plan.unknown.flatMap(({ index, header }, u) => {
    const filled = filledByColumn[u] as number;
    if (header === '' && filled === 0) return [];
    return [
      {
        row: 1,
        column: header || `column ${index + 1}`,
        code: 'column_unknown',
        message: `${header ? `Column "${header}"` : `Column ${index + 1} has no heading and`} is not a field of this collection; its ${filled} value${filled === 1 ? ' was' : 's were'} ignored.`,
      },
    ];
  });
  if (widest > table.header.length) {
    warnings.push({
      row: 1,
      column: `column ${table.header.length + 1}`,
      code: 'column_unknown',
      message: `Some rows have more cells than the header has columns; cells beyond column ${table.header.length} were ignored.`,
    });
  }
  if (plan.problems.length > 0) {
    throw new AppError('invalid_csv', `The header row cannot be used: ${plan.problems.map((p) => p.message).join(' ')}`, {
      errors: plan.problems.map((p) => ({ row: 1, ...p })),
      warnings,
    });
  }
  if (table.rows.length === 0) {
    throw new AppError('invalid_csv', 'The file has a header row but no people.', { warnings });
  }

  const read = await mapInSlices(table.rows, ({ row, cells }) => readRow(plan, row, cells), pause);
  // Only identifiers a person can have are looked up: the rest are row errors, and PostgreSQL
  // refuses a NUL in any text it is sent.
  const storable = (value: string | null | undefined): value is string => !!value && unsafeTextReason(value) === null;
  const existing = await findUsersByIdentifiers(
    deps.db.kysely,
    collection.id,
    [...new Set(read.flatMap((r) => (storable(r.emailNormalized) ? [r.emailNormalized] : [])))],
    [...new Set(read.flatMap((r) => (storable(r.fields.external_id) ? [r.fields.external_id] : [])))],
  );
  const now = deps.clock.now().toISOString();
  const context: WriteContext = {
    collectionId: collection.id,
    now,
    writer: options.writer ?? 'organiser',
    overwritePersonEdits: options.overwritePersonEdits ?? false,
  };
  const { outcomes, errors, personEdits } = await resolveRows(read, existing, definitions, plan, context, pause);

  const count = (action: Outcome['action']) => outcomes.filter((o) => o.action === action).length;
  const report: ImportReport = {
    mode,
    dry_run: dryRun,
    rows: read.length,
    created: count('create'),
    updated: count('update'),
    unchanged: count('unchanged'),
    failed: count('error'),
    errors,
    warnings,
    person_edits: personEdits,
  };
  if (dryRun) return { ...report, preview: outcomes.slice(0, IMPORT_PREVIEW_ROWS).map(previewOf) };
  if (mode === 'all_or_nothing' && report.failed > 0) {
    throw new AppError(
      'import_invalid',
      `${report.failed} of ${report.rows} rows have errors; nothing was imported. Fix them, or import the valid rows with mode=valid_rows.`,
      { errors, warnings },
    );
  }
  const creates = outcomes.flatMap((o) => (o.action === 'create' ? [o.user] : []));
  const updates = outcomes.flatMap((o) => (o.action === 'update' ? [o.user] : []));
  // New people share `created_at`; their ids, sorted, follow the file's order, so every
  // `(created_at, id)` order (the reader's import order, the oldest-first table) is the file's.
  const ids = creates.map((user) => user.id).sort();
  creates.forEach((user, index) => {
    user.id = ids[index] as string;
  });
  try {
    await withTransaction(deps, async (tx) => {
      await insertUsers(tx.trx, creates);
      await updateUserRows(tx.trx, updates);
      if (creates.length > 0) await adjustMemberCount(tx.trx, collection.id, creates.length);
      // Names, pronouns and phonetic spellings show on play-link pages.
      tx.afterCommit(() => {
        if (updates.length > 100) invalidateAllPlayLinks(deps);
        else for (const user of updates) invalidatePlayLinksOfUser(deps, user.id);
      });
    });
  } catch (error) {
    if (uniqueViolation(error)) {
      throw new AppError(
        'conflict',
        'Another request added or changed people of this collection at the same time; import the file again.',
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  return report;
}

/** The cells of one row by field: trimmed, with empty custom cells as null. */
function readRow(plan: ColumnPlan, row: number, cells: string[]): ReadRow {
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

interface Matching {
  byEmail: Map<string, UserRow>;
  byExternal: Map<string, UserRow>;
}

async function resolveRows(
  rows: ReadRow[],
  existing: UserRow[],
  definitions: CustomField[],
  plan: ColumnPlan,
  context: WriteContext,
  pause: () => Promise<void>,
): Promise<{ outcomes: Outcome[]; errors: RowError[]; personEdits: ImportPersonEdit[] }> {
  const matching: Matching = {
    byEmail: new Map(existing.map((u) => [u.email_normalized, u])),
    byExternal: new Map(existing.flatMap((u) => (u.external_id === null ? [] : [[u.external_id, u] as const]))),
  };
  const seenEmail = new Map<string, number>();
  const seenExternal = new Map<string, number>();
  const seenPerson = new Map<string, number>();
  const errors: RowError[] = [];
  const personEdits: ImportPersonEdit[] = [];
  const resolveRow = (read: ReadRow): Outcome => {
    const issues: RowError[] = [];
    const issue = (field: StandardField | { custom: string }, code: string, message: string) =>
      issues.push({ row: read.row, column: plan.columnOf(field), code, message });
    const target = findTarget(read, matching, issue);
    const result = buildUser(read, target, definitions, plan, context, issues);

    const external = read.fields.external_id || null;
    if (external !== null) {
      const earlier = seenExternal.get(external);
      if (earlier !== undefined)
        issue('external_id', 'external_id_taken', `The external_id "${external}" also appears at row ${earlier}.`);
      else seenExternal.set(external, read.row);
    }
    if (read.emailNormalized !== null) {
      const earlier = seenEmail.get(read.emailNormalized);
      if (earlier !== undefined)
        issue('email', 'email_taken', `The e-mail "${read.fields.email}" also appears at row ${earlier}.`);
      else seenEmail.set(read.emailNormalized, read.row);
    }
    if (target) {
      const earlier = seenPerson.get(target.id);
      if (earlier !== undefined) issue('email', 'duplicate_person', `Row ${earlier} already updates the same person.`);
      else seenPerson.set(target.id, read.row);
      // A changed e-mail must not be another person's.
      const holder = read.emailNormalized === null ? undefined : matching.byEmail.get(read.emailNormalized);
      if (holder && holder.id !== target.id) {
        issue('email', 'email_taken', `Another person of this collection has the e-mail "${read.fields.email}".`);
      }
    }
    // In the order of the file's columns, as the organiser reads the row.
    errors.push(...issues.sort((a, b) => plan.positionOf(a.column) - plan.positionOf(b.column)));
    if (issues.length > 0 || !result) return { row: read.row, action: 'error', read };
    if (!target) {
      result.field_sources = JSON.stringify(stampSources({}, changedFields(undefined, result), context.writer, context.now));
      return { row: read.row, action: 'create', user: result, changes: [], kept: [] };
    }
    const edits = keepPersonEdits(target, result, read.row, context);
    personEdits.push(...edits);
    const changed = changedFields(target, result);
    const sources = stampSources(parseSources(target.field_sources), changed, context.writer, result.updated_at);
    result.field_sources = JSON.stringify(sources);
    return {
      row: read.row,
      action: changed.length === 0 ? 'unchanged' : 'update',
      user: result,
      changes: changed.map((field) => ({ field, before: fieldValue(target, field), after: fieldValue(result, field) })),
      kept: edits.filter((edit) => edit.action === 'kept').map((edit) => edit.field),
    };
  };
  // Rows are checked (schema, custom fields) in turn, pausing whenever a time slice is used up.
  const outcomes = await mapInSlices(rows, resolveRow, pause);
  return { outcomes, errors, personEdits };
}

/** A field's value by provenance key (`custom_fields.<key>` reads the custom values). */
function fieldValue(user: UserRow, field: string): string | number | boolean | null {
  if (field.startsWith('custom_fields.')) {
    return (JSON.parse(user.custom_fields) as CustomValues)[field.slice('custom_fields.'.length)] ?? null;
  }
  return user[field as TrackedField];
}

/**
 * The values the person set themselves (after the organiser's last change to them) that the
 * file would change. Unless the organiser chose to overwrite them for this import, `next`
 * keeps the person's value. Answers each such field, kept or overwritten, for the report.
 */
function keepPersonEdits(target: UserRow, next: UserRow, row: number, context: WriteContext): ImportPersonEdit[] {
  const sources = parseSources(target.field_sources);
  const edits: ImportPersonEdit[] = [];
  for (const field of changedFields(target, next)) {
    const source = sources[field];
    if (!source || !writtenByPerson(sources, field)) continue;
    const before = fieldValue(target, field);
    const after = fieldValue(next, field);
    edits.push({
      row,
      user_id: target.id,
      field,
      person_value: before === null ? null : String(before),
      file_value: after === null ? null : String(after),
      set_at: source.at,
      action: context.overwritePersonEdits ? 'overwritten' : 'kept',
    });
    if (context.overwritePersonEdits) continue;
    if (field.startsWith('custom_fields.')) {
      const values = JSON.parse(next.custom_fields) as CustomValues;
      const key = field.slice('custom_fields.'.length);
      if (before === null) delete values[key];
      else values[key] = before;
      next.custom_fields = JSON.stringify(values);
    } else Object.assign(next, { [field]: before });
  }
  return edits;
}

/** The person this row updates: by external_id, else by e-mail (unless that person has another external_id). */
function findTarget(
  read: ReadRow,
  matching: Matching,
  issue: (field: StandardField, code: string, message: string) => void,
): UserRow | undefined {
  const external = read.fields.external_id || null;
  if (external !== null) {
    const byExternal = matching.byExternal.get(external);
    if (byExternal) return byExternal;
  }
  const byEmail = read.emailNormalized === null ? undefined : matching.byEmail.get(read.emailNormalized);
  if (byEmail && external !== null && byEmail.external_id !== null && byEmail.external_id !== external) {
    issue(
      'email',
      'email_taken',
      `The e-mail "${read.fields.email}" belongs to the person with external_id "${byEmail.external_id}", not "${external}".`,
    );
    return undefined;
  }
  return byEmail;
}

/** The row as it will be stored (a new person, or `target` with the file's values), or null when it has errors. */
function buildUser(
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
  else if (has('display_name') || !target || target.display_name === defaultDisplayName(target.first_name, target.last_name)) {
    // An empty display name cell, a new person, or one whose display name was the default.
    displayName = defaultDisplayName(firstName, lastName);
  } else displayName = target.display_name;
  const optional = (field: 'preferred_name' | 'pronouns' | 'phonetic_spelling') =>
    has(field) ? optionalText(value(field)) : (target?.[field] ?? null);
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
    custom_fields: JSON.stringify(custom.values),
    record_token: target?.record_token ?? newRecordToken(),
    recording_status: target?.recording_status ?? 'none',
    review_note: target?.review_note ?? null,
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

/** `now`, or a millisecond after `previous` when the clock has not passed it (updated_at always moves forward). */
const later = (now: string, previous: string) => (now > previous ? now : new Date(Date.parse(previous) + 1).toISOString());

function previewOf(outcome: Outcome): ImportPreviewRow {
  if (outcome.action !== 'error') {
    const { user } = outcome;
    return {
      row: outcome.row,
      action: outcome.action,
      email: user.email,
      first_name: user.first_name,
      last_name: user.last_name,
      display_name: user.display_name,
      preferred_name: user.preferred_name,
      pronouns: user.pronouns,
      external_id: user.external_id,
      phonetic_spelling: user.phonetic_spelling,
      custom_fields: JSON.parse(user.custom_fields) as CustomValues,
      changes: outcome.changes,
      kept: outcome.kept,
    };
  }
  const { fields, custom } = outcome.read;
  const cell = (field: StandardField) => fields[field] || null;
  return {
    row: outcome.row,
    action: 'error',
    email: cell('email'),
    first_name: cell('first_name'),
    last_name: cell('last_name'),
    display_name: cell('display_name'),
    preferred_name: cell('preferred_name'),
    pronouns: cell('pronouns'),
    external_id: cell('external_id'),
    phonetic_spelling: cell('phonetic_spelling'),
    custom_fields: Object.fromEntries(Object.entries(custom).filter((entry): entry is [string, CellValue] => entry[1] !== null)),
    changes: [],
    kept: [],
  };
}
