import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';
import { RecordingStatus } from '../collections/schemas.js';
import { Pronunciation, PronunciationInput } from '../pronunciation/schemas.js';

export const MAX_BATCH_USERS = 1000;

const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'Unique within the collection (case-insensitive).',
});
const FirstName = SafeText({ name: true, minLength: 1, maxLength: 100, description: '1 to 100 characters, not blank.' });
const LastName = SafeText({
  name: true,
  maxLength: 100,
  description: 'At most 100 characters. Optional: people with one name leave it out (or send null or ""); it reads back as "".',
});
const DisplayName = SafeText({
  name: true,
  minLength: 1,
  maxLength: 200,
  description: 'How the name is shown. Defaults to first_name + " " + last_name, or first_name alone when there is no last name.',
});
const PreferredName = SafeText({
  name: true,
  maxLength: 100,
  description: 'The name the person goes by, when it differs (e.g. "Bob" for Robert). At most 100 characters.',
});
const Pronouns = SafeText({ maxLength: 40, description: 'e.g. "she/her", "they/them". At most 40 characters.' });
const ExternalId = SafeText({
  minLength: 1,
  maxLength: 255,
  description: 'Your own id for this person; unique within the collection.',
});
const Phonetic = SafeText({
  maxLength: 100,
  description: 'How to say the name in letters, e.g. "shiv-AWN nee VREE-in". At most 100 characters.',
});
/** A BCP 47 language tag (`en`, `ga`, `es-MX`, `zh-Hans`), stored in its canonical case. */
const NAME_LANGUAGE_SHAPE = { pattern: '^([A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,4})?$', maxLength: 35 };
const PERSON_LANGUAGE =
  'The language of the person’s mail and record page: en, es, fr, de, zh-Hans or ar ("es-MX" and "zh-CN" are stored as their language); null or "": the collection’s (on the record page, the browser’s first).';
const NameLanguage = Type.String({
  ...NAME_LANGUAGE_SHAPE,
  description: 'BCP 47 language tag, e.g. "en", "ga", "es-MX", "zh-Hans". null or "" removes it.',
});
/** The person's own language (docs/invitations.md), a tag of the same shape as a name's; checked in the service. */
const PersonLanguage = Type.String({ ...NAME_LANGUAGE_SHAPE, description: PERSON_LANGUAGE });
const CustomFieldValue = Type.Union([SafeText({ multiline: true, maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]);
const CustomFieldValues = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), CustomFieldValue, {
  description: "Values keyed by the collection's custom field keys; checked against their definitions.",
});

export const FIELD_SOURCES = ['organiser', 'person', 'integration'] as const;
export const FieldSource = Type.Enum(FIELD_SOURCES, {
  description:
    'Who wrote a value: `organiser` (dashboard, API, import), `person` (their own record page) or `integration` (a roster sync).',
});
export type FieldSource = Static<typeof FieldSource>;
export const FieldSources = Type.Record(
  Type.String(),
  Type.Object(
    {
      source: FieldSource,
      at: Type.String({ format: 'date-time', description: 'When that writer last changed the field.' }),
    },
    { additionalProperties: false },
  ),
  {
    title: 'FieldSources',
    description:
      'Who last wrote each field and when, keyed by field name (`display_name`, …, `custom_fields.<key>`). Fields without an entry were set by the organiser before writers were recorded. An import keeps values whose source is `person` unless it is told to overwrite them.',
  },
);
export type FieldSources = Static<typeof FieldSources>;

export const User = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    collection_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    first_name: Type.String(),
    last_name: Type.String({ description: '"" for people with one name.' }),
    display_name: Type.String(),
    preferred_name: Nullable(Type.String(), { description: 'The name the person goes by; null when not given.' }),
    pronouns: Nullable(Type.String(), { description: 'null when not given.' }),
    external_id: Nullable(Type.String()),
    phonetic_spelling: Nullable(Type.String()),
    name_language: Nullable(Type.String(), {
      description: 'The language of the name (BCP 47), used to make its pronunciation guide; null: not given.',
    }),
    given_name_language: Nullable(Type.String(), {
      description: "The given name's own language, when it differs; null otherwise.",
    }),
    family_name_language: Nullable(Type.String(), {
      description: "The family name's own language, when it differs; null otherwise.",
    }),
    language: Nullable(Type.String(), { description: PERSON_LANGUAGE }),
    custom_fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    has_recording: Type.Boolean(),
    recording_status: RecordingStatus,
    review_note: Nullable(
      Type.String({ description: "The organiser's note asking for a new recording (with `needs_rerecord`); null otherwise." }),
    ),
    listened_at: Nullable(Type.String({ format: 'date-time' }), {
      description:
        'When an organiser last played the current recording in the dashboard; null if nobody has, or without a recording.',
    }),
    record_url: Type.String({ description: 'The personal recorder page: `{BASE_URL}/r/<token>`. Anyone with it can record.' }),
    invitation: Type.Object(
      {
        status: Type.Unsafe<'queued' | 'sent' | 'failed' | null>({
          type: ['string', 'null'],
          enum: ['queued', 'sent', 'failed', null],
          description: 'The latest e-mail to the person (invitation, reminder or re-record request); null before any.',
        }),
        error: Nullable(Type.String(), {
          description: 'Why the latest e-mail failed (the mail server’s answer); null otherwise.',
        }),
        invited_at: Nullable(Type.String({ format: 'date-time' }), { description: 'When the last invitation was queued.' }),
        updated_at: Nullable(Type.String({ format: 'date-time' }), { description: 'When `status` last changed.' }),
        unsubscribed_at: Nullable(Type.String({ format: 'date-time' }), {
          description: 'When the person unsubscribed from this collection’s mail; they get none after it.',
        }),
      },
      { additionalProperties: false, description: 'E-mail to this person: see POST /v1/collections/{id}/invitations.' },
    ),
    pronunciation: Pronunciation,
    field_sources: FieldSources,
    updated_by: Type.Unsafe<FieldSource | null>({
      type: ['string', 'null'],
      enum: [...FIELD_SOURCES, null],
      description: 'Who made the latest change to the fields (the newest entry of `field_sources`); null when none is recorded.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'User', additionalProperties: false },
);
export type User = Static<typeof User>;

export const CreateUserBody = Type.Object(
  {
    email: Email,
    first_name: FirstName,
    last_name: Type.Optional(Nullable(LastName)),
    display_name: Type.Optional(DisplayName),
    preferred_name: Type.Optional(Nullable(PreferredName)),
    pronouns: Type.Optional(Nullable(Pronouns)),
    external_id: Type.Optional(Nullable(ExternalId)),
    phonetic_spelling: Type.Optional(Nullable(Phonetic)),
    name_language: Type.Optional(Nullable(NameLanguage)),
    given_name_language: Type.Optional(Nullable(NameLanguage)),
    family_name_language: Type.Optional(Nullable(NameLanguage)),
    language: Type.Optional(Nullable(PersonLanguage)),
    custom_fields: Type.Optional(CustomFieldValues),
  },
  { additionalProperties: false, title: 'CreateUser' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(Email),
    first_name: Type.Optional(FirstName),
    last_name: Type.Optional(Nullable(LastName, { description: 'null or "" removes it (the person has one name).' })),
    display_name: Type.Optional(Nullable(DisplayName, { description: 'null resets it to the default (first + last name).' })),
    preferred_name: Type.Optional(Nullable(PreferredName, { description: 'null or "" removes it.' })),
    pronouns: Type.Optional(Nullable(Pronouns, { description: 'null or "" removes them.' })),
    external_id: Type.Optional(Nullable(ExternalId)),
    phonetic_spelling: Type.Optional(Nullable(Phonetic)),
    name_language: Type.Optional(Nullable(NameLanguage)),
    given_name_language: Type.Optional(Nullable(NameLanguage)),
    family_name_language: Type.Optional(Nullable(NameLanguage)),
    language: Type.Optional(Nullable(PersonLanguage)),
    custom_fields: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), CustomFieldValue, {
        description: 'Merged into the current values; a null value removes that field.',
      }),
    ),
    pronunciation: Type.Optional(PronunciationInput),
  },
  { title: 'UpdateUser', additionalProperties: false },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

/** The rows are checked one by one in the service, so every bad row is reported, not just the first. */
export const BatchUsersBody = Type.Object(
  {
    users: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: MAX_BATCH_USERS,
      description: `1 to ${MAX_BATCH_USERS} users, each shaped like the body of "Create a user".`,
    }),
  },
  { title: 'CreateUsersBatch', additionalProperties: false },
);

export const UserList = Type.Object(
  {
    data: Type.Array(User),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { title: 'UserList' },
);

export const BatchUsersResponse = Type.Object({ data: Type.Array(User) }, { title: 'UsersBatch' });

export const CollectionParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });
export const UserParams = Type.Object({
  collection_id: Type.String({ maxLength: 64 }),
  user_id: Type.String({ maxLength: 64 }),
});

export const ListUsersQuery = Type.Object(
  {
    limit: Type.Optional(PageQuery.limit),
    cursor: Type.Optional(PageQuery.cursor),
    has_recording: Type.Optional(Type.Boolean({ description: 'Only users with (true) or without (false) a recording.' })),
    recording_status: Type.Optional(RecordingStatus),
    email: Type.Optional(SafeText({ maxLength: 254, description: 'Exact e-mail (case-insensitive).' })),
    external_id: Type.Optional(SafeText({ maxLength: 255, description: 'Exact external_id.' })),
  },
  { additionalProperties: false },
);
export type ListUsersQuery = Static<typeof ListUsersQuery>;

export const DeletedUser = Type.Object({ deleted: Type.Literal(true), id: Type.String() }, { title: 'DeletedUser' });

export const MAX_REVIEW_NOTE_LENGTH = 500;

export const ReviewBody = Type.Object(
  {
    decision: Type.Enum(['approve', 'request_rerecord'] as const, {
      description: '`approve` the current recording, or `request_rerecord` (ask the person for a new one).',
    }),
    note: Type.Optional(
      Nullable(
        SafeText({
          multiline: true,
          minLength: 1,
          maxLength: MAX_REVIEW_NOTE_LENGTH,
          description:
            'Required with `request_rerecord`: what to change, shown to the person on their recorder page (1 to 500 characters). Not allowed with `approve`.',
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'ReviewDecision' },
);
export type ReviewBody = Static<typeof ReviewBody>;

// ---- CSV import ----

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
