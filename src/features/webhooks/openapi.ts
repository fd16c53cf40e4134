/**
 * The OpenAPI `webhooks` object: every event this service sends, its body and its signature
 * headers. `recording.completed` is exactly the spec's; the others as built (docs/webhooks.md).
 */
import { type TSchema, Type } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { Pronunciation } from '../pronunciation/schemas.js';

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
  kind: Type.String({ description: '`invitation`, `reminder` or `rerecord_request`.' }),
  mail_id: Type.String(),
};

export const WEBHOOK_EVENTS: Record<string, { summary: string; schema: TSchema }> = {
  'recording.completed': {
    summary: 'A person finished recording their name (also on every re-recording)',
    schema: envelope('recording.completed', RecordingData, 'RecordingCompletedEvent'),
  },
  'recording.deleted': {
    summary: 'A recording was deleted (through the API, the dashboard, or with its person)',
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
  },
  'user.updated': {
    summary: "A person's details changed (by the organiser, by the API, or by the person on their record page)",
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
  },
  'pronunciation.updated': {
    summary:
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
  },
  'user.deleted': {
    summary: 'A person was deleted',
    schema: envelope(
      'user.deleted',
      Type.Object(
        { collection_id: Type.String(), user_id: Type.String(), deleted_at: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
      'UserDeletedEvent',
    ),
  },
  'collection.erased': {
    summary: 'A collection was erased for good',
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
  },
  'invitation.sent': {
    summary: 'An invitation, reminder or re-record e-mail was sent',
    schema: envelope(
      'invitation.sent',
      Type.Object({ ...InvitationSubject, sent_at: Type.String({ format: 'date-time' }) }, { additionalProperties: false }),
      'InvitationSentEvent',
    ),
  },
  'invitation.failed': {
    summary: 'An e-mail to a person could not be sent',
    schema: envelope(
      'invitation.failed',
      Type.Object(
        { ...InvitationSubject, error: Type.String(), failed_at: Type.String({ format: 'date-time' }) },
        { additionalProperties: false },
      ),
      'InvitationFailedEvent',
    ),
  },
  'webhook.test': {
    summary: 'A test event (POST /v1/webhooks/{webhook_id}/test)',
    schema: envelope(
      'webhook.test',
      Type.Object({ webhook_id: Type.String() }, { additionalProperties: false }),
      'WebhookTestEvent',
    ),
  },
};

const header = (description: string) => ({ description, required: true, schema: { type: 'string' } });

const SIGNATURE_PARAMETERS = [
  {
    name: 'webhook-id',
    in: 'header',
    ...header('The delivery id: the same on every attempt of one delivery (deduplicate on it).'),
  },
  { name: 'webhook-timestamp', in: 'header', ...header('Unix seconds of this attempt.') },
  {
    name: 'webhook-signature',
    in: 'header',
    ...header('Standard Webhooks: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, space-separated during a rotation.'),
  },
  {
    name: 'X-Service-Signature',
    in: 'header',
    ...header("Hex HMAC-SHA256 of the raw body with the webhook secret (the spec's header)."),
  },
];

export function webhooksObject() {
  return Object.fromEntries(
    Object.entries(WEBHOOK_EVENTS).map(([event, { summary, schema }]) => [
      event,
      {
        post: {
          operationId: `webhookEvents.${event.replace(/\.(\w)/g, (_m, c: string) => c.toUpperCase())}`,
          tags: ['Webhooks'],
          summary,
          security: [],
          description: 'Sent to every enabled webhook subscribed to this kind (or `*`). Verify the signature before trusting it.',
          parameters: SIGNATURE_PARAMETERS,
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: {
            200: { description: 'Received. Any 2xx counts as delivered; anything else is retried.' },
          },
        },
      },
    ]),
  );
}
