/**
 * The OpenAPI `webhooks` object: every event of the event catalog (event-catalog.ts, also served
 * by `GET /v1/event-types`), its body and its signature headers.
 */
import { WEBHOOK_EVENTS } from './event-catalog.js';

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
    Object.entries(WEBHOOK_EVENTS).map(([event, { description: summary, schema, example }]) => [
      event,
      {
        post: {
          operationId: `webhookEvents.${event.replace(/\.(\w)/g, (_m, c: string) => c.toUpperCase())}`,
          tags: ['Webhooks'],
          summary,
          security: [],
          description: 'Sent to every enabled webhook subscribed to this kind (or `*`). Verify the signature before trusting it.',
          parameters: SIGNATURE_PARAMETERS,
          requestBody: { required: true, content: { 'application/json': { schema, example } } },
          responses: {
            200: { description: 'Received. Any 2xx counts as delivered; anything else is retried.' },
          },
        },
      },
    ]),
  );
}
