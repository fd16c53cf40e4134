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
import { queueGuides } from '../pronunciation/generate-job.js';
import { AppError, type RowError } from '../../errors.js';
import { unsafeTextReason } from '../../lib/text.js';
import { mapInSlices, timeSlices } from '../../lib/time-slices.js';
import { withTransaction } from '../../db/transaction.js';
import type { CustomField } from '../collections/schemas.js';
import { adjustMemberCount, requireLiveCollection } from '../collections/service.js';
import { invalidateAllPlayLinks, invalidatePlayLinksOfUser } from '../play-links/index.js';
import { type ColumnPlan, countCells, planColumns, type StandardField } from './csv-columns.js';
import { readCsvTable } from './csv-file.js';
import {
  buildUser,
  type CellValue,
  composedGivenFirstOfFamilyFirstName,
  type ReadRow,
  readRow,
  type WriteContext,
} from './import-row.js';
import type { NameOrder } from '../../lib/name-order.js';
import { findUsersByIdentifiers, insertUsers, uniqueViolation, updateUserRows, type UserRow } from './repo.js';
import { applyBulkWrite, type FieldSource, newPersonSources } from './provenance.js';
import {
  IMPORT_PREVIEW_ROWS,
  type ImportFieldChange,
  type ImportPersonEdit,
  type ImportMode,
  type ImportPreviewRow,
  type ImportReport,
  MAX_IMPORT_BYTES,
  MAX_IMPORT_ROWS,
} from './schemas.js';
import type { UsersDeps } from './service.js';
import type { CustomValues } from './validate.js';

export interface ImportOptions {
  mode?: ImportMode;
  dryRun?: boolean;
  /** Replace values the person set themselves too (the organiser's explicit choice for this import). */
  overwritePersonEdits?: boolean;
  /** Who the import writes for: the organiser's file, or an integration's roster sync. */
  writer?: FieldSource;
  /** How default display names are composed for rows without a `name_order` cell (default `given_first`). */
  nameOrder?: NameOrder;
}

type Outcome =
  | {
      row: number;
      action: 'create' | 'update' | 'unchanged';
      user: UserRow;
      changes: ImportFieldChange[];
      kept: string[];
      /** A family-name-first name composed given name first (the preview's hint counts these). */
      givenFirstHint: boolean;
    }
  | { row: number; action: 'error'; read: ReadRow };

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
    nameOrder: options.nameOrder ?? 'given_first',
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
    name_order: context.nameOrder,
    family_name_first_rows: outcomes.filter((o) => o.action !== 'error' && o.givenFirstHint).length,
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
      // Guides of new and changed people (an unchanged name keeps its guide: the job compares).
      await queueGuides(
        tx,
        [...creates, ...updates].map((user) => user.id),
      );
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
      result.field_sources = newPersonSources(result, context.writer, context.now);
      const givenFirstHint = composedGivenFirstOfFamilyFirstName(read, result, []);
      return { row: read.row, action: 'create', user: result, changes: [], kept: [], givenFirstHint };
    }
    const write = applyBulkWrite(target, result, {
      row: read.row,
      writer: context.writer,
      overwrite: context.overwritePersonEdits,
    });
    personEdits.push(...write.personEdits);
    const action = write.changes.length === 0 ? 'unchanged' : 'update';
    const givenFirstHint = composedGivenFirstOfFamilyFirstName(read, result, write.kept);
    return { row: read.row, action, user: result, changes: write.changes, kept: write.kept, givenFirstHint };
  };
  // Rows are checked (schema, custom fields) in turn, pausing whenever a time slice is used up.
  const outcomes = await mapInSlices(rows, resolveRow, pause);
  return { outcomes, errors, personEdits };
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
