import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';
import { RecordingStatus } from '../collections/schemas.js';

export const MAX_BATCH_USERS = 1000;

const Email = Type.String({
  format: 'email',
  minLength: 3,
  maxLength: 254,
  description: 'Unique within the collection (case-insensitive).',
});
const PersonName = SafeText({ name: true, minLength: 1, maxLength: 100, description: '1 to 100 characters, not blank.' });
const DisplayName = SafeText({
  name: true,
  minLength: 1,
  maxLength: 200,
  description: 'Defaults to first_name + " " + last_name.',
});
const ExternalId = SafeText({
  minLength: 1,
  maxLength: 255,
  description: 'Your own id for this person; unique within the collection.',
});
const Phonetic = SafeText({
  maxLength: 100,
  description: 'How to say the name in letters, e.g. "shiv-AWN nee VREE-in". At most 100 characters.',
});
const CustomFieldValue = Type.Union([SafeText({ multiline: true, maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]);
const CustomFieldValues = Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), CustomFieldValue, {
  description: "Values keyed by the collection's custom field keys; checked against their definitions.",
});

export const User = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    collection_id: Type.String({ format: 'uuid' }),
    email: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    display_name: Type.String(),
    external_id: Nullable(Type.String()),
    phonetic_spelling: Nullable(Type.String()),
    custom_fields: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()])),
    has_recording: Type.Boolean(),
    recording_status: RecordingStatus,
    review_note: Nullable(
      Type.String({ description: "The organiser's note asking for a new recording (with `needs_rerecord`); null otherwise." }),
    ),
    record_url: Type.String({ description: 'The personal recorder page: `{BASE_URL}/r/<token>`. Anyone with it can record.' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'User', additionalProperties: false },
);
export type User = Static<typeof User>;

export const CreateUserBody = Type.Object(
  {
    email: Email,
    first_name: PersonName,
    last_name: PersonName,
    display_name: Type.Optional(DisplayName),
    external_id: Type.Optional(Nullable(ExternalId)),
    phonetic_spelling: Type.Optional(Nullable(Phonetic)),
    custom_fields: Type.Optional(CustomFieldValues),
  },
  { additionalProperties: false, title: 'CreateUser' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    email: Type.Optional(Email),
    first_name: Type.Optional(PersonName),
    last_name: Type.Optional(PersonName),
    display_name: Type.Optional(Nullable(DisplayName, { description: 'null resets it to first + last name.' })),
    external_id: Type.Optional(Nullable(ExternalId)),
    phonetic_spelling: Type.Optional(Nullable(Phonetic)),
    custom_fields: Type.Optional(
      Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$' }), CustomFieldValue, {
        description: 'Merged into the current values; a null value removes that field.',
      }),
    ),
  },
  { additionalProperties: false },
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
  { additionalProperties: false },
);

export const UserList = Type.Object({
  data: Type.Array(User),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});

export const BatchUsersResponse = Type.Object({ data: Type.Array(User) });

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

export const DeletedUser = Type.Object({ deleted: Type.Literal(true), id: Type.String() });

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
