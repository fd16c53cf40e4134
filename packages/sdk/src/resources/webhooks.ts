import { Paginator } from '../pagination.js';
import { type ApiClient, callOptions, type RequestOptions, unwrap } from '../request.js';
import type {
  DeletedWebhook,
  EventType,
  Webhook,
  WebhookCreateParams,
  WebhookDelivery,
  WebhookListParams,
  WebhookMessageListParams,
  WebhookRecoverParams,
  WebhookRecoverResult,
  WebhookUpdateParams,
  WebhookWithSecret,
} from '../types.js';

/** `/v1/webhooks`: endpoints that receive signed events (check them with `verifyWebhook`). */
export class Webhooks {
  constructor(private readonly api: ApiClient) {}

  /** The answer carries the signing `secret`, shown only here and on rotation. */
  create(params: WebhookCreateParams, options?: RequestOptions): Promise<WebhookWithSecret> {
    return unwrap(this.api.POST('/v1/webhooks', { body: params, ...callOptions(options) }));
  }

  list(params: WebhookListParams = {}, options?: RequestOptions): Paginator<Webhook> {
    return new Paginator(
      (cursor) => unwrap(this.api.GET('/v1/webhooks', { params: { query: { ...params, cursor } }, ...callOptions(options) })),
      params.cursor,
    );
  }

  get(webhookId: string, options?: RequestOptions): Promise<Webhook> {
    const path = { webhook_id: webhookId };
    return unwrap(this.api.GET('/v1/webhooks/{webhook_id}', { params: { path }, ...callOptions(options) }));
  }

  update(webhookId: string, params: WebhookUpdateParams, options?: RequestOptions): Promise<Webhook> {
    const path = { webhook_id: webhookId };
    return unwrap(this.api.PATCH('/v1/webhooks/{webhook_id}', { params: { path }, body: params, ...callOptions(options) }));
  }

  delete(webhookId: string, options?: RequestOptions): Promise<DeletedWebhook> {
    const path = { webhook_id: webhookId };
    return unwrap(this.api.DELETE('/v1/webhooks/{webhook_id}', { params: { path }, ...callOptions(options) }));
  }

  /** A new secret; the previous one keeps signing alongside it for 24 hours. */
  rotateSecret(webhookId: string, options?: RequestOptions): Promise<WebhookWithSecret> {
    const path = { webhook_id: webhookId };
    return unwrap(this.api.POST('/v1/webhooks/{webhook_id}/rotate-secret', { params: { path }, ...callOptions(options) }));
  }

  /** Sends a signed `webhook.test` event now; answers the delivery with the attempt's result. */
  test(webhookId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const path = { webhook_id: webhookId };
    return unwrap(this.api.POST('/v1/webhooks/{webhook_id}/test', { params: { path }, ...callOptions(options) }));
  }

  /** Newest first, each with its attempts. */
  deliveries(webhookId: string, params: WebhookListParams = {}, options?: RequestOptions): Paginator<WebhookDelivery> {
    const path = { webhook_id: webhookId };
    return new Paginator(
      (cursor) =>
        unwrap(
          this.api.GET('/v1/webhooks/{webhook_id}/deliveries', {
            params: { path, query: { ...params, cursor } },
            ...callOptions(options),
          }),
        ),
      params.cursor,
    );
  }

  /** Sends a delivery again now (same body, same `webhook-id`). */
  redeliver(webhookId: string, deliveryId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const path = { webhook_id: webhookId, delivery_id: deliveryId };
    return unwrap(
      this.api.POST('/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', {
        params: { path },
        ...callOptions(options),
      }),
    );
  }

  /** Every event type webhooks receive, with the JSON Schema of its body and an example (`GET /v1/event-types`). */
  async eventTypes(options?: RequestOptions): Promise<EventType[]> {
    return (await unwrap(this.api.GET('/v1/event-types', callOptions(options)))).data;
  }

  /** Messages (the same objects as deliveries), newest first, narrowed by `status`, `event_type`, `since` and `until`. */
  messages(webhookId: string, params: WebhookMessageListParams = {}, options?: RequestOptions): Paginator<WebhookDelivery> {
    const path = { webhook_id: webhookId };
    return new Paginator(
      (cursor) =>
        unwrap(
          this.api.GET('/v1/webhooks/{webhook_id}/messages', {
            params: { path, query: { ...params, cursor } },
            ...callOptions(options),
          }),
        ),
      params.cursor,
    );
  }

  /** Queues every message that failed in [`since`, `until`) again, oldest first, each with its original `webhook-id`. */
  recover(webhookId: string, params: WebhookRecoverParams, options?: RequestOptions): Promise<WebhookRecoverResult> {
    const path = { webhook_id: webhookId };
    return unwrap(
      this.api.POST('/v1/webhooks/{webhook_id}/recover', { params: { path }, body: params, ...callOptions(options) }),
    );
  }

  /** Sends one message again now, whatever its status (a new attempt, the same `webhook-id`). */
  replayMessage(webhookId: string, messageId: string, options?: RequestOptions): Promise<WebhookDelivery> {
    const path = { webhook_id: webhookId, message_id: messageId };
    return unwrap(
      this.api.POST('/v1/webhooks/{webhook_id}/messages/{message_id}/replay', { params: { path }, ...callOptions(options) }),
    );
  }
}
