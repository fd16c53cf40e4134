import { type Static, Type } from 'typebox';
import { Nullable, SafeText } from '../../http/schemas.js';
import { PageQuery } from '../../lib/pagination.js';

/** Event kinds a webhook can subscribe to; `*` means every kind, including future ones. */
export const EVENT_KINDS = [
  'recording.completed',
  'recording.deleted',
  'user.updated',
  'pronunciation.updated',
  'user.deleted',
  'collection.erased',
  'invitation.sent',
  'invitation.failed',
] as const;
export const SUBSCRIBABLE = [...EVENT_KINDS, '*'] as const;
export const TEST_EVENT = 'webhook.test';
export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 1000;
/** What a webhook's body is made for: the spec's signed JSON, or a chat channel's message. */
export const WEBHOOK_KINDS = ['standard', 'slack', 'teams'] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];
/** `thin`: ids and the object's API URL instead of the event's data (standard webhooks only). */
export const PAYLOAD_FORMATS = ['full', 'thin'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];
/** The kinds a chat destination (slack, teams) can subscribe to: they read as a message to people. */
export const CHAT_EVENT_KINDS = ['recording.completed', 'recording.deleted'] as const;

const Url = SafeText({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'HTTPS URL that accepts POST; its host must resolve to public addresses only.',
});
const Events = Type.Array(SafeText({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 20,
  description: `Event kinds to receive: ${SUBSCRIBABLE.map((k) => `\`${k}\``).join(', ')} (\`*\` = all).`,
});
const Description = Nullable(SafeText({ multiline: true, maxLength: MAX_DESCRIPTION_LENGTH }));
const Kind = Type.Union([Type.Literal('standard'), Type.Literal('slack'), Type.Literal('teams')], {
  description:
    '`standard` (default): the signed JSON event. `slack`: a Slack incoming-webhook message (`hooks.slack.com`). `teams`: an Adaptive Card for a Microsoft Teams Workflows URL. Chat kinds receive `recording.completed` and `recording.deleted` only.',
});
const Payload = Type.Union([Type.Literal('full'), Type.Literal('thin')], {
  description:
    '`full` (default): the event with its data. `thin`: ids, the event kind and a `url` to fetch the object with your API key, no personal data. Standard webhooks only.',
});

/** A chain of a few certificates, or a key, fits easily; more is not a certificate. */
const MAX_PEM_LENGTH = 32 * 1024;
const ClientCertificate = Type.String({
  minLength: 1,
  maxLength: MAX_PEM_LENGTH,
  description:
    'Mutual TLS: a client certificate (PEM, optionally followed by its chain) presented to the receiver; https URLs only. Give it with `tls_client_key`; write-only (never returned).',
});
const ClientKey = Type.String({
  minLength: 1,
  maxLength: MAX_PEM_LENGTH,
  description: "The client certificate's private key (unencrypted PEM); stored encrypted, write-only (never returned).",
});

export const Webhook = Type.Object(
  {
    id: Type.String({ description: '`wh_` + 32 hex characters.' }),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    status: Type.Union([Type.Literal('enabled'), Type.Literal('disabled')], {
      description: '`disabled` after 10 consecutive failed attempts; re-enabled from the dashboard (or the CLI).',
    }),
    consecutive_failures: Type.Integer({
      minimum: 0,
      description:
        'Failed automatic attempts in a row, across its deliveries; the 10th disables the webhook. Any success resets it.',
    }),
    disabled_at: Nullable(Type.String({ format: 'date-time' }), { description: 'When it was disabled; null while enabled.' }),
    disabled_reason: Nullable(Type.String(), {
      description: 'Why it was disabled: `consecutive_failures` (10 failed attempts in a row); null while enabled.',
    }),
    kind: Kind,
    payload: Payload,
    has_tls_client_certificate: Type.Boolean({
      description: 'Whether deliveries present a client certificate (mutual TLS); the certificate and key are never returned.',
    }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { title: 'Webhook', additionalProperties: false },
);
export type Webhook = Static<typeof Webhook>;

export const WebhookWithSecret = Type.Object(
  {
    ...Webhook.properties,
    secret: Type.String({ description: '`whsec_…`; returned only at creation and on rotation. Store it now.' }),
  },
  { title: 'WebhookWithSecret', additionalProperties: false },
);
export type WebhookWithSecret = Static<typeof WebhookWithSecret>;

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    description: Type.Optional(Description),
    kind: Type.Optional(Kind),
    payload: Type.Optional(Payload),
    tls_client_certificate: Type.Optional(ClientCertificate),
    tls_client_key: Type.Optional(ClientKey),
  },
  { title: 'CreateWebhook', additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    kind: Type.Optional(Kind),
    payload: Type.Optional(Payload),
    tls_client_certificate: Type.Optional(
      Nullable(ClientCertificate, { description: 'A new client certificate; null (with `tls_client_key: null`) removes it.' }),
    ),
    tls_client_key: Type.Optional(Nullable(ClientKey)),
  },
  { title: 'UpdateWebhook', additionalProperties: false },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookParams = Type.Object({ webhook_id: Type.String({ maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  webhook_id: Type.String({ maxLength: 64 }),
  delivery_id: Type.String({ maxLength: 64 }),
});

export const ListQuery = Type.Object(
  { limit: Type.Optional(PageQuery.limit), cursor: Type.Optional(PageQuery.cursor) },
  { additionalProperties: false },
);

export const WebhookList = Type.Object(
  {
    data: Type.Array(Webhook),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { title: 'WebhookList' },
);

export const DeletedWebhook = Type.Object({ deleted: Type.Literal(true), id: Type.String() }, { title: 'DeletedWebhook' });

export const Attempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1, description: 'Attempt number within the delivery, from 1.' }),
    trigger: Type.Union([Type.Literal('automatic'), Type.Literal('manual'), Type.Literal('test')]),
    attempted_at: Type.String({ format: 'date-time' }),
    response_status: Nullable(Type.Integer(), { description: 'Null when no HTTP answer arrived.' }),
    duration_ms: Type.Integer({ minimum: 0 }),
    error: Type.Union(
      [
        Type.Object({
          code: Type.String({
            description:
              'timeout, connect_failed, dns_failed, forbidden_address, invalid_url, network_error, redirect or http_status.',
          }),
          message: Type.String(),
        }),
        Type.Null(),
      ],
      { description: 'Null on success (a 2xx).' },
    ),
    response_body: Type.String({ description: 'First 2 KB of the response body.' }),
  },
  { title: 'WebhookAttempt', additionalProperties: false },
);
export type Attempt = Static<typeof Attempt>;

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'Also sent as the `webhook-id` header: the same on every attempt.' }),
    webhook_id: Type.String(),
    event_id: Type.String(),
    event: Type.String({ description: 'Event kind, e.g. `recording.completed` or `webhook.test`.' }),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description: '`failed` once all automatic attempts failed.',
    }),
    attempt_count: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    attempts: Type.Array(Attempt),
  },
  { title: 'WebhookDelivery', additionalProperties: false },
);
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = Type.Object(
  {
    data: Type.Array(Delivery),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { title: 'WebhookDeliveryList' },
);

/** A JSON value described elsewhere (a schema, an example body): sent as it is. */
const AnyObject = (description: string) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description });

export const EventType = Type.Object(
  {
    name: Type.String({ description: "The event type, as in the body's `event` and a webhook's `events`." }),
    description: Type.String(),
    schema: AnyObject('JSON Schema (2020-12) of the body a webhook receives (the full payload).'),
    example: AnyObject('An example body.'),
  },
  { title: 'EventType', additionalProperties: false },
);

export const EventTypeList = Type.Object(
  { data: Type.Array(EventType) },
  { title: 'EventTypeList', additionalProperties: false },
);

/** A message is a delivery (the same row, id and `webhook-id`); `messages` is the name the recovery operations use. */
export const MessageParams = Type.Object({
  webhook_id: Type.String({ maxLength: 64 }),
  message_id: Type.String({ maxLength: 64 }),
});

export const MessageListQuery = Type.Object(
  {
    limit: Type.Optional(PageQuery.limit),
    cursor: Type.Optional(PageQuery.cursor),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
    event_type: Type.Optional(SafeText({ minLength: 1, maxLength: 100, description: 'Only messages of this event kind.' })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Created at or after (RFC 3339).' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Created before (RFC 3339).' })),
  },
  { additionalProperties: false },
);
export type MessageListQuery = Static<typeof MessageListQuery>;

export const RecoverBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'RFC 3339. Messages created at or after this time; no earlier than the log retention allows.',
    }),
    until: Type.Optional(
      Type.String({ format: 'date-time', description: 'RFC 3339. Messages created before this time; default now.' }),
    ),
  },
  { title: 'RecoverWebhookMessages', additionalProperties: false },
);
export type RecoverBody = Static<typeof RecoverBody>;

export const RecoverResult = Type.Object(
  {
    queued: Type.Integer({
      minimum: 0,
      description: 'Failed messages queued again by this call (0 when a previous recovery already queued them).',
    }),
  },
  { title: 'RecoverWebhookMessagesResult', additionalProperties: false },
);
