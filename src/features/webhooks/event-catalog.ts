/**
 * The event catalog: every event type this service sends, with its description, the JSON Schema
 * of the body a standard (full-payload) webhook receives, and an example. The one source of the
 * OpenAPI `webhooks` object (openapi.ts), `GET /v1/event-types` and docs/events.md, so the three
 * cannot disagree. `recording.completed` is exactly the spec's body.
 */
import { type TSchema, Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { Pronunciation } from '../pronunciation/schemas.js';
import { TEST_EVENT } from './schemas.js';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

const Timestamp = Type.String({ format: 'date-time', description: 'When the event happened (ISO 8601, UTC).' });

const envelope = (event: string, data: TSchema, title: string) =>
  Type.Object({ event: Type.Literal(event), timestamp: Timestamp, data }, { title, additionalProperties: false });

const RecordingData = Type.Object(
  {
    collection_id: Type.String(),
    user_id: Type.String(),
    email: Type.String({ format: 'email' }),
    first_name: Type.String(),
    last_name: Type.String(),
    play_link: Type.String({ format: 'uri' }),
    recorded_at: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const InvitationSubject = {
  collection_id: Type.String(),
  user_id: Type.String(),
  email: Type.String({ format: 'email' }),
  kind: Type.Enum(['invitation', 'reminder', 'rerecord'] as const, {
    description: 'Which e-mail: `invitation`, `reminder` or `rerecord` (a re-record request).',
  }),
  mail_id: Type.String(),
};

export interface EventDefinition {
  /** One line: the OpenAPI operation's summary and the catalog's description. */
  description: string;
  schema: TSchema;
  /** A body as a receiver gets it; it validates against `schema` (tests/event-catalog.test.ts). */
  example: { event: string; timestamp: string; data: Record<string, unknown> };
}

const COLLECTION = '6f1c1c1e-2b2a-4c1e-9d57-0c1b8f0e2a11';
const USER = '0b7e5d8a-1f3c-4e59-8a0d-5c6e7f8a9b01';
const AT = '2026-01-15T12:00:00.000Z';
const example = (event: string, data: Record<string, unknown>) => ({ event, timestamp: AT, data });

const recordingExample = {
  collection_id: COLLECTION,
  user_id: USER,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  play_link: 'https://voicename.example/p/Xq3vT9kLm2Pz',
  recorded_at: '2026-01-15T11:59:58.000Z',
};

const invitationExample = {
  collection_id: COLLECTION,
  user_id: USER,
  email: 'ada@example.com',
  kind: 'invitation',
  mail_id: '5e0c2f4e-3f0a-4c55-9a57-7f7d1f0b9c11',
};

/** Every event type sent, in the order the docs list them. */
export const WEBHOOK_EVENTS: Record<string, EventDefinition> = {
  'recording.completed': {
    description: 'A person finished recording their name (also on every re-recording)',
    schema: envelope('recording.completed', RecordingData, 'RecordingCompletedEvent'),
    example: example('recording.completed', recordingExample),
  },
  'recording.deleted': {
    description: 'A recording was deleted (through the API, the dashboard, or with its person)',
    schema: envelope(
      'recording.deleted',
      Type.Object(
        {
          ...RecordingData.properties,
          play_link: Nullable(Type.String({ format: 'uri' }), { description: 'Null when the person never had a link.' }),
        },
        { additionalProperties: false },
      ),
      'RecordingDeletedEvent',
    ),
    example: example('recording.deleted', recordingExample),
  },
  'user.updated': {
    description: "A person's details changed (by the organiser, by the API, or by the person on their record page)",
    schema: envelope(
      'user.updated',
      Type.Object(
        {
          collection_id: Type.String(),
          user_id: Type.String(),
          external_id: Nullable(Type.String()),
          changed_fields: Type.Array(Type.String(), {
            description: 'The fields that changed: `first_name`, …, `phonetic_spelling`, `custom_fields.<key>`.',
          }),
          updated_by: Type.Enum(['organiser', 'person', 'integration'] as const, {
            description: 'Who changed them: `person` when they corrected their own details.',
          }),
          updated_at: Type.String({ format: 'date-time' }),
        },
        { additionalProperties: false },
      ),
      'UserUpdatedEvent',
    ),
    example: example('user.updated', {
      collection_id: COLLECTION,
      user_id: USER,
      external_id: 'S1042',
      changed_fields: ['preferred_name', 'phonetic_spelling'],
      updated_by: 'person',
      updated_at: AT,
    }),
  },
  'pronunciation.updated': {
    description:
      "A person's pronunciation guide was made, changed (by the organiser or the person), approved or unapproved by the person",
    schema: envelope(
      'pronunciation.updated',
      Type.Object(
        {
          collection_id: Type.String(),
          user_id: Type.String(),
          external_id: Nullable(Type.String()),
          pronunciation: Pronunciation,
        },
        { additionalProperties: false },
      ),
      'PronunciationUpdatedEvent',
    ),
    example: example('pronunciation.updated', {
      collection_id: COLLECTION,
      user_id: USER,
      external_id: null,
      pronunciation: {
        coverage: 'guide',
        language: 'ga',
        language_suggested: false,
        ipa: 'ʃɪˈvɔːn',
        respelling: 'shiv-AWN',
        not_like: 'SEE-oh-ban',
        source: 'generated',
        approved_at: null,
        audio_url: null,
        updated_at: AT,
      },
    }),
  },
  'user.deleted': {
    description: 'A person was deleted',
    schema: envelope(
      'user.deleted',
      Type.Object(
        { collection_id: Type.String(), user_id: Type.String(), deleted_at: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
      'UserDeletedEvent',
    ),
    example: example('user.deleted', { collection_id: COLLECTION, user_id: USER, deleted_at: AT }),
  },
  'collection.erased': {
    description: 'A collection was erased for good',
    schema: envelope(
      'collection.erased',
      Type.Object(
        {
          collection_id: Type.String(),
          erasure_id: Type.String(),
          erased_at: Type.String({ format: 'date-time' }),
          counts: Type.Record(Type.String(), Type.Integer(), { description: 'What was erased, by kind.' }),
        },
        { additionalProperties: false },
      ),
      'CollectionErasedEvent',
    ),
    example: example('collection.erased', {
      collection_id: COLLECTION,
      erasure_id: 'era_3f9c2a7d1b6e4f08a5c2d9e7b1f04a6c',
      erased_at: AT,
      counts: { users: 12, recordings: 10, play_links: 10, deliveries: 24, events: 22, stored_responses: 1 },
    }),
  },
  'invitation.sent': {
    description: 'An invitation, reminder or re-record e-mail was sent',
    schema: envelope(
      'invitation.sent',
      Type.Object({ ...InvitationSubject, sent_at: Type.String({ format: 'date-time' }) }, { additionalProperties: false }),
      'InvitationSentEvent',
    ),
    example: example('invitation.sent', { ...invitationExample, sent_at: AT }),
  },
  'invitation.failed': {
    description: 'An e-mail to a person could not be sent',
    schema: envelope(
      'invitation.failed',
      Type.Object(
        { ...InvitationSubject, error: Type.String(), failed_at: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
      'InvitationFailedEvent',
    ),
    example: example('invitation.failed', { ...invitationExample, error: '550 5.1.1 No such mailbox', failed_at: AT }),
  },
  [TEST_EVENT]: {
    description: 'A test event (POST /v1/webhooks/{webhook_id}/test)',
    schema: envelope(TEST_EVENT, Type.Object({ webhook_id: Type.String() }, { additionalProperties: false }), 'WebhookTestEvent'),
    example: example(TEST_EVENT, { webhook_id: 'wh_8c1d0f6a2b3e4d5f9a7b6c5d4e3f2a1b' }),
  },
};

/** What `GET /v1/event-types` lists for one event type. */
export interface EventType {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  example: EventDefinition['example'];
}

/** A schema as plain JSON Schema 2020-12 (TypeBox's own markers dropped), standalone with its dialect. */
export const standaloneSchema = (schema: TSchema): Record<string, unknown> => ({
  $schema: JSON_SCHEMA_DIALECT,
  ...(JSON.parse(JSON.stringify(schema)) as Record<string, unknown>),
});

export function eventTypes(): EventType[] {
  return Object.entries(WEBHOOK_EVENTS).map(([name, { description, schema, example }]) => ({
    name,
    description,
    schema: standaloneSchema(schema),
    example,
  }));
}
