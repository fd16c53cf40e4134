/** The CSV import's limits, its query and its report (`POST …/users/import`). */
import { type Static, Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { NAME_ORDERS } from '../../lib/name-order.js';

export const MAX_IMPORT_ROWS = 10_000;
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
export const IMPORT_PREVIEW_ROWS = 20;
/*
 * Bounds every CSV file (import and batch) keeps, checked while it is read: reading stops at the
 * first byte past one, so no file makes the reader work or hold more than these allow.
 */
export const MAX_CSV_COLUMNS = 200;
export const MAX_CSV_CELL_CHARS = 10_000;
/** A row's bytes as UTF-8: one line, or several when a quoted cell holds line breaks. */
export const MAX_CSV_ROW_BYTES = 64 * 1024;
/** Rows of any kind, blank ones included (a file of line breaks holds no people but costs reading). */
export const MAX_CSV_ROWS = 50_000;
export const IMPORT_MODES = ['all_or_nothing', 'valid_rows'] as const;

const NAME_ORDER_RULE =
  '`given_first` (default): the default display_name is first_name + " " + last_name ("Wei Zhang"). `family_first`: last_name first, as Chinese, Japanese, Korean, Hungarian and Vietnamese names are said ("Zhang Wei"), without a space when both names are written in Han, Kana or Hangul (张 + 伟 → 张伟). A display_name given always wins.';
/** How a default display name is composed (not stored: a display name shows its order). */
export const NameOrderParam = Type.Enum(NAME_ORDERS, { description: NAME_ORDER_RULE });
export type ImportMode = (typeof IMPORT_MODES)[number];

export const ImportQuery = Type.Object(
  {
    mode: Type.Optional(
      Type.Enum(IMPORT_MODES, {
        description:
          '`all_or_nothing` (default): any bad row and nothing is written (400 `import_invalid`). `valid_rows`: the good rows are written, the bad ones reported.',
      }),
    ),
    dry_run: Type.Optional(
      Type.Boolean({
        description: 'Check the file and report what would happen (with a preview of the first rows); write nothing.',
      }),
    ),
    name_order: Type.Optional(
      Type.Enum(NAME_ORDERS, {
        description: `The file's name order, for rows without a \`name_order\` column value. ${NAME_ORDER_RULE}`,
      }),
    ),
    overwrite_person_edits: Type.Optional(
      Type.Boolean({
        description:
          "By default a value the person set themselves (on their record page, after your last change to it) is kept, and listed in `person_edits`. `true` replaces those values with the file's too.",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportQuery = Static<typeof ImportQuery>;

export const RowIssue = Type.Object(
  {
    row: Type.Integer({ description: 'Spreadsheet row number: the header is row 1, the first person row 2.' }),
    column: Type.String({ description: 'The column heading as written in the file (the field name when no column has it).' }),
    code: Type.String(),
    message: Type.String(),
  },
  { title: 'ImportRowIssue' },
);

const PreviewValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);
const FieldValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]);
export const ImportFieldChange = Type.Object(
  {
    field: Type.String({ description: 'The field: `first_name`, …, or `custom_fields.<key>`.' }),
    before: FieldValue,
    after: FieldValue,
  },
  { title: 'ImportFieldChange', additionalProperties: false },
);
export type ImportFieldChange = Static<typeof ImportFieldChange>;
export const ImportPersonEdit = Type.Object(
  {
    row: Type.Integer(),
    user_id: Type.String({ format: 'uuid' }),
    field: Type.String(),
    person_value: Type.Union([Type.String(), Type.Null()], { description: 'What the person set themselves.' }),
    file_value: Type.Union([Type.String(), Type.Null()], { description: 'What the file says.' }),
    set_at: Type.String({ format: 'date-time', description: 'When the person set it.' }),
    action: Type.Enum(['kept', 'overwritten'] as const, {
      description: '`kept` (the default) or `overwritten` (with `overwrite_person_edits=true`).',
    }),
  },
  {
    title: 'ImportPersonEdit',
    description: "A value the person set themselves that differs from the file's.",
    additionalProperties: false,
  },
);
export type ImportPersonEdit = Static<typeof ImportPersonEdit>;
export const ImportPreviewRow = Type.Object(
  {
    row: Type.Integer(),
    action: Type.Enum(['create', 'update', 'unchanged', 'error'] as const),
    email: Nullable(Type.String()),
    first_name: Nullable(Type.String()),
    last_name: Nullable(Type.String()),
    display_name: Nullable(Type.String()),
    preferred_name: Nullable(Type.String()),
    pronouns: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    phonetic_spelling: Nullable(Type.String()),
    custom_fields: Type.Record(Type.String(), PreviewValue),
    changes: Type.Array(ImportFieldChange, {
      description: 'For `update` rows: each field that changes, before → after. Empty otherwise.',
    }),
    kept: Type.Array(Type.String(), {
      description: "Fields whose value the person set themselves and the import keeps (the file's value is not used).",
    }),
  },
  {
    title: 'ImportPreviewRow',
    description: 'A row as it will be stored; for a row with errors, its cells as read.',
  },
);
export type ImportPreviewRow = Static<typeof ImportPreviewRow>;

export const ImportReport = Type.Object(
  {
    mode: Type.Enum(IMPORT_MODES),
    dry_run: Type.Boolean(),
    rows: Type.Integer({ description: 'People rows in the file (blank rows are skipped).' }),
    created: Type.Integer(),
    updated: Type.Integer(),
    unchanged: Type.Integer(),
    failed: Type.Integer({ description: 'Rows with at least one error (not written).' }),
    errors: Type.Array(RowIssue, { description: 'Every problem of every row.' }),
    warnings: Type.Array(RowIssue, { description: 'What was ignored, e.g. unknown columns (row 1).' }),
    name_order: Type.Enum(NAME_ORDERS, { description: "The file's name order (the `name_order` parameter)." }),
    family_name_first_rows: Type.Integer({
      description:
        'Rows whose names look family-name-first (written in Han, Kana or Hangul, or with a name language zh, ja, ko, hu or vi) and whose display_name will be composed given name first: neither the file nor the row gives a display_name or `family_first`. Import again with `name_order=family_first` when these names are written family name first.',
    }),
    person_edits: Type.Array(ImportPersonEdit, {
      description:
        'Every value, in every row, that the person set themselves and the file would change: kept unless `overwrite_person_edits=true`.',
    }),
    preview: Type.Optional(
      Type.Array(ImportPreviewRow, { description: `Dry runs only: the first ${IMPORT_PREVIEW_ROWS} rows.` }),
    ),
  },
  { title: 'ImportReport', additionalProperties: false },
);
export type ImportReport = Static<typeof ImportReport>;

/** The error envelope of an import: per-row `errors` and `warnings` instead of batch items. */
export const ImportErrorResponse = Type.Object(
  {
    error: Type.Object({
      type: Type.String(),
      code: Type.String(),
      message: Type.String(),
      param: Type.Optional(Type.String()),
      request_id: Type.String(),
      errors: Type.Optional(Type.Array(RowIssue)),
      warnings: Type.Optional(Type.Array(RowIssue)),
    }),
  },
  { title: 'ImportError' },
);
