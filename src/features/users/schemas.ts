import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';
import { RecordingStatus } from '../collections/schemas.js';
import { Pronunciation, PronunciationInput } from '../pronunciation/schemas.js';
import { NameOrderParam } from './import-schemas.js';

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
  description:
    'How the name is shown. Defaults to first_name + " " + last_name (last_name first with `name_order` `family_first`), or first_name alone when there is no last name.',
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
    name_order: Type.Optional(NameOrderParam),
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

// The CSV import's limits, query and report: import-schemas.ts.
export * from './import-schemas.js';
