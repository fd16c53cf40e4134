import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { LOCALES } from '../../i18n/index.js';
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

export const MAX_REMINDERS = 5;
/** The placeholders an invitation message may use; anything else in `{{ }}` is refused. */
export const INVITATION_PLACEHOLDERS = ['first_name', 'display_name', 'collection', 'deadline', 'record_url'] as const;

const Deadline = Type.String({
  format: 'date',
  description:
    'The last day people can record (`YYYY-MM-DD`), shown on the record page and in mail; reminders count back from it.',
});
const Language = Type.Enum(LOCALES, {
  description:
    "Default language of the record page, player page and mail; a person's own `language` wins on their mail and record page, and a browser language (`Accept-Language`) that is one of these wins on pages otherwise.",
});
const SelfEdit = Type.Boolean({
  description:
    'When true (the default), people may correct their display name, preferred name, pronouns and phonetic spelling on their record page.',
});

const BrandingText = {
  organisation_name: SafeText({
    name: true,
    maxLength: 100,
    description: 'Shown on the record page, the player page and in mail.',
  }),
  intro: SafeText({
    multiline: true,
    maxLength: 1000,
    description: 'A few words to the people invited: why you ask, who will hear it.',
  }),
  privacy_note: SafeText({
    multiline: true,
    maxLength: 1000,
    description: 'Who can hear the recording. Without one, the record page says anyone with the play link can.',
  }),
};

const BrandColor = Type.String({
  pattern: '^#[0-9a-fA-F]{6}$',
  description:
    'Colour of the buttons and accents of the record page and the player page, as `#rrggbb` (stored in lower case). ' +
    'Buttons carry white text, so white on it must reach the WCAG AA contrast of 4.5:1; a lighter colour is refused ' +
    '(400 `parameter_invalid`), and the message gives its ratio and the lightest darker shade that passes. Null: the service’s own colours.',
});

export const Branding = Type.Object(
  {
    organisation_name: Nullable(Type.String()),
    intro: Nullable(Type.String()),
    privacy_note: Nullable(Type.String()),
    logo_url: Nullable(
      Type.String({ format: 'uri', description: 'The logo, re-encoded as PNG; set it with `PUT /v1/collections/{id}/logo`.' }),
    ),
    brand_color: Nullable(BrandColor),
  },
  { title: 'Branding', additionalProperties: false },
);

const BrandingInput = Type.Object(
  {
    organisation_name: Type.Optional(Nullable(BrandingText.organisation_name)),
    intro: Type.Optional(Nullable(BrandingText.intro)),
    privacy_note: Type.Optional(Nullable(BrandingText.privacy_note)),
    brand_color: Type.Optional(Nullable(BrandColor)),
  },
  { additionalProperties: false, description: 'Fields to change; null clears one.' },
);

const InvitationText = {
  reminders: Type.Array(Type.Integer({ minimum: 1, maximum: 365 }), {
    maxItems: MAX_REMINDERS,
    uniqueItems: true,
    description:
      'Whole days before the deadline on which people who have not recorded get a reminder, e.g. [7, 2]. Needs a deadline.',
  }),
  sender_name: SafeText({
    name: true,
    maxLength: 100,
    description: 'The name the mail comes from (the address is the service’s).',
  }),
  reply_to: Type.String({ format: 'email', maxLength: 254, description: 'Where replies to the mail go.' }),
  message: SafeText({
    multiline: true,
    maxLength: 5000,
    description:
      'The invitation text, with placeholders `{{first_name}}`, `{{display_name}}`, `{{collection}}`, `{{deadline}}` and `{{record_url}}` ' +
      '(escaped in the HTML part). Null: the default text in the collection’s language.',
  }),
  reminder_message: SafeText({
    multiline: true,
    maxLength: 5000,
    description:
      'The reminder text (scheduled reminders, and invitations to people invited before), with the placeholders of `message`. ' +
      'Null: the default reminder in the person’s language.',
  }),
};

export const InvitationSettings = Type.Object(
  {
    reminders: Type.Array(Type.Integer()),
    sender_name: Nullable(Type.String()),
    reply_to: Nullable(Type.String()),
    message: Nullable(Type.String()),
    reminder_message: Nullable(Type.String()),
  },
  { title: 'InvitationSettings', additionalProperties: false },
);

const InvitationSettingsInput = Type.Object(
  {
    reminders: Type.Optional(InvitationText.reminders),
    sender_name: Type.Optional(Nullable(InvitationText.sender_name)),
    reply_to: Type.Optional(Nullable(InvitationText.reply_to)),
    message: Type.Optional(Nullable(InvitationText.message)),
    reminder_message: Type.Optional(Nullable(InvitationText.reminder_message)),
  },
  { additionalProperties: false, description: 'Fields to change; null clears one.' },
);
export type InvitationSettingsInput = Static<typeof InvitationSettingsInput>;
export type BrandingInput = Static<typeof BrandingInput>;

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
    deadline: Nullable(Type.String({ format: 'date' })),
    language: Type.Enum(LOCALES),
    self_edit: Type.Boolean(),
    branding: Branding,
    invitation_settings: InvitationSettings,
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
    deadline: Type.Optional(Nullable(Deadline)),
    language: Type.Optional(Language),
    self_edit: Type.Optional(SelfEdit),
    branding: Type.Optional(BrandingInput),
    invitation_settings: Type.Optional(InvitationSettingsInput),
  },
  { title: 'CreateCollection', additionalProperties: false },
);
export type CreateCollectionBody = Static<typeof CreateCollectionBody>;

export const UpdateCollectionBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(Description)),
    review_required: Type.Optional(ReviewRequired),
    deadline: Type.Optional(Nullable(Deadline)),
    language: Type.Optional(Language),
    self_edit: Type.Optional(SelfEdit),
    branding: Type.Optional(BrandingInput),
    invitation_settings: Type.Optional(InvitationSettingsInput),
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
  { title: 'UpdateCollection', additionalProperties: false },
);
export type UpdateCollectionBody = Static<typeof UpdateCollectionBody>;

export const CollectionParams = Type.Object({ collection_id: Type.String({ maxLength: 64 }) });

export const ListCollectionsQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) },
  { additionalProperties: false },
);

export const CollectionList = Type.Object(
  {
    data: Type.Array(Collection),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { title: 'CollectionList' },
);

export const DeletedCollection = Type.Object(
  {
    deleted: Type.Literal(true),
    id: Type.String(),
    erased: Type.Optional(Type.Literal(true, { description: 'Present with `?erase=true`: the collection was erased for good.' })),
    erasure_id: Type.Optional(Type.String({ description: 'With `?erase=true`: the erasure record (`GET /v1/erasures`).' })),
  },
  { title: 'DeletedCollection' },
);

export const DeleteCollectionQuery = Type.Object(
  {
    erase: Type.Optional(
      Type.Boolean({
        description:
          'true: erase for good now (people, recordings, audio, play links, events about them; the play links then answer 410) ' +
          'instead of archiving. Cannot be undone.',
      }),
    ),
  },
  { additionalProperties: false },
);
