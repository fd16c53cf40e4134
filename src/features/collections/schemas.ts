import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';

export const CUSTOM_FIELD_TYPES = ['text', 'email', 'url', 'number', 'boolean', 'select'] as const;
export const MAX_CUSTOM_FIELDS = 50;

export const CustomField = Type.Object(
  {
    key: Type.String({
      pattern: '^[a-z][a-z0-9_]{0,62}$',
      description:
        'Identifier of the field in user records: lower-case letters, digits and underscores, starting with a letter, at most 63 characters. Unique within the collection.',
    }),
    label: SafeText({ minLength: 1, maxLength: 100, description: 'Human-readable label shown in forms.' }),
    type: Type.Enum(CUSTOM_FIELD_TYPES, { description: 'Kind of value the field holds.' }),
    required: Type.Boolean({ default: false, description: 'Whether every user must have a value.' }),
    options: Type.Optional(
      Type.Array(SafeText({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 100,
        description: 'Allowed values; required for `select`, not allowed for other types.',
      }),
    ),
  },
  { additionalProperties: false, title: 'CustomField' },
);
export type CustomField = Static<typeof CustomField>;

export const RECORDING_STATUSES = ['none', 'recorded', 'approved', 'needs_rerecord'] as const;
export const RecordingStatus = Type.Enum(RECORDING_STATUSES, {
  description:
    '`none`: no recording; `recorded`: a recording awaits review (or needs none); `approved`: an organiser approved it; ' +
    '`needs_rerecord`: an organiser asked for a new one (see `review_note`).',
});
export type RecordingStatus = Static<typeof RecordingStatus>;

const ReviewRequired = Type.Boolean({
  description: 'When true, a recording counts as recorded (`recorded_count`) only once an organiser approved it. Default false.',
});

export const Collection = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ maxLength: 255 }),
    description: Nullable(Type.String()),
    custom_fields: Type.Array(CustomField),
    member_count: Type.Integer({ minimum: 0 }),
    recorded_count: Type.Integer({
      minimum: 0,
      description: 'People with a recording; with `review_required`, people whose recording is approved.',
    }),
    review_required: ReviewRequired,
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Collection', additionalProperties: false },
);
export type Collection = Static<typeof Collection>;

const Name = SafeText({ name: true, minLength: 1, maxLength: 255, description: 'At most 255 characters.' });
const Description = SafeText({ multiline: true, maxLength: 10_000 });

export const CreateCollectionBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Nullable(Description)),
    custom_fields: Type.Optional(Type.Array(CustomField, { maxItems: MAX_CUSTOM_FIELDS })),
    review_required: Type.Optional(ReviewRequired),
  },
  { additionalProperties: false },
);
export type CreateCollectionBody = Static<typeof CreateCollectionBody>;

export const UpdateCollectionBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(Description)),
    review_required: Type.Optional(ReviewRequired),
    custom_fields: Type.Optional(
      Type.Array(CustomField, {
        maxItems: MAX_CUSTOM_FIELDS,
        description:
          'The full new list of definitions: add fields, change labels, `required` and select `options`, remove fields. ' +
          'A field keeps its `key` and `type`; the values people have for remaining fields are kept, and the values of a ' +
          'removed field are deleted.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>;

export const CollectionParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });

export const ListCollectionsQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) },
  { additionalProperties: false },
);

export const CollectionList = Type.Object({
  data: Type.Array(Collection),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String()),
});

export const DeletedCollection = Type.Object({ deleted: Type.Literal(true), id: Type.String() });
