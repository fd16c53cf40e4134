import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import {
  CreateWebhookBody,
  DeletedWebhook,
  Delivery,
  DeliveryList,
  DeliveryParams,
  EventTypeList,
  ListQuery,
  MessageListQuery,
  MessageParams,
  RecoverBody,
  RecoverResult,
  UpdateWebhookBody,
  WebhookList,
  WebhookParams,
  Webhook as WebhookSchema,
  WebhookWithSecret,
} from './schemas.js';
import { eventTypes } from './event-catalog.js';
import { listWebhookDeliveries, redeliverDelivery, sendTestEvent } from './deliveries-service.js';
import { listWebhookMessages, recoverFailedMessages, replayMessage } from './messages-service.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './service.js';

export const webhooksRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    const tags = ['Webhooks'];
    const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

    app.post(
      '/webhooks',
      {
        config: { audit: 'webhook.created' },
        schema: {
          tags,
          operationId: 'webhooks.create',
          summary: 'Register a webhook',
          description: 'The response carries the signing `secret`; it is shown only here and on rotation.',
          body: CreateWebhookBody,
          response: { 201: WebhookWithSecret, ...errors },
        },
      },
      async (request, reply) => {
        const webhook = await createWebhook(deps, accountOf(request), request.body);
        return reply.code(201).header('location', `${deps.config.baseUrl}/v1/webhooks/${webhook.id}`).send(webhook);
      },
    );

    app.get(
      '/webhooks',
      {
        schema: {
          tags,
          operationId: 'webhooks.list',
          summary: 'List webhooks',
          description:
            'Your webhooks, newest first, paged with `limit` and `cursor`. The secret is shown only at creation and rotation.',
          querystring: ListQuery,
          response: { 200: WebhookList, ...errors },
        },
      },
      async (request) => listWebhooks(deps, accountOf(request), request.query),
    );

    app.get(
      '/webhooks/:webhook_id',
      {
        schema: {
          tags,
          operationId: 'webhooks.get',
          summary: 'Fetch a webhook',
          description: 'One webhook: its URL, events, status and failure count.',
          params: WebhookParams,
          response: { 200: WebhookSchema, ...errors },
        },
      },
      async (request) => getWebhook(deps, accountOf(request), request.params.webhook_id),
    );

    app.patch(
      '/webhooks/:webhook_id',
      {
        config: { audit: 'webhook.updated' },
        schema: {
          tags,
          operationId: 'webhooks.update',
          summary: 'Update a webhook',
          description: 'Re-enabling a disabled webhook is a dashboard action, not done here.',
          params: WebhookParams,
          body: UpdateWebhookBody,
          response: { 200: WebhookSchema, ...errors },
        },
      },
      async (request) => updateWebhook(deps, accountOf(request), request.params.webhook_id, request.body),
    );

    app.delete(
      '/webhooks/:webhook_id',
      {
        config: { audit: 'webhook.deleted' },
        schema: {
          tags,
          operationId: 'webhooks.delete',
          summary: 'Delete a webhook',
          description: 'No further deliveries are made to it.',
          params: WebhookParams,
          response: { 200: DeletedWebhook, ...errors },
        },
      },
      async (request) => deleteWebhook(deps, accountOf(request), request.params.webhook_id),
    );

    app.post(
      '/webhooks/:webhook_id/rotate-secret',
      {
        config: { audit: 'webhook.secret_rotated' },
        schema: {
          tags,
          operationId: 'webhooks.rotateSecret',
          summary: 'Rotate the signing secret',
          description: 'Returns the new secret. The previous secret keeps signing alongside it for 24 hours.',
          params: WebhookParams,
          response: { 200: WebhookWithSecret, ...errors },
        },
      },
      async (request) => rotateWebhookSecret(deps, accountOf(request), request.params.webhook_id),
    );

    app.post(
      '/webhooks/:webhook_id/test',
      {
        config: { audit: 'webhook.test_sent' },
        schema: {
          tags,
          operationId: 'webhooks.test',
          summary: 'Send a test event',
          description: 'Sends a signed `webhook.test` event now and returns the delivery with the attempt result.',
          params: WebhookParams,
          response: { 200: Delivery, ...errors, 409: ErrorResponse },
        },
      },
      async (request) => sendTestEvent(deps, accountOf(request), request.params.webhook_id),
    );

    app.get(
      '/webhooks/:webhook_id/deliveries',
      {
        schema: {
          tags,
          operationId: 'webhooks.listDeliveries',
          summary: 'List deliveries',
          description: 'Newest first; each delivery lists its attempts (time, response status, duration, error, first 2 KB).',
          params: WebhookParams,
          querystring: ListQuery,
          response: { 200: DeliveryList, ...errors },
        },
      },
      async (request) => listWebhookDeliveries(deps, accountOf(request), request.params.webhook_id, request.query),
    );

    app.post(
      '/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
      {
        config: { audit: 'webhook.delivery_redelivered' },
        schema: {
          tags,
          operationId: 'webhooks.redeliver',
          summary: 'Redeliver',
          description: 'Sends the delivery again now (same body, same `webhook-id`) and returns it with the new attempt.',
          params: DeliveryParams,
          response: { 200: Delivery, ...errors, 409: ErrorResponse },
        },
      },
      async (request) => redeliverDelivery(deps, accountOf(request), request.params.webhook_id, request.params.delivery_id),
    );

    app.get(
      '/event-types',
      {
        schema: {
          tags,
          operationId: 'eventTypes.list',
          summary: 'List event types',
          description:
            "Every event type webhooks receive, with a description, the JSON Schema (2020-12) of its body and an example: the same definitions as this document's `webhooks`. The schemas describe the full payload (a webhook's default); a webhook set to thin payloads receives ids only.",
          response: { 200: EventTypeList, 401: ErrorResponse },
        },
      },
      async () => ({ data: eventTypes() }),
    );

    app.get(
      '/webhooks/:webhook_id/messages',
      {
        schema: {
          tags,
          operationId: 'webhooks.listMessages',
          summary: 'List messages',
          description:
            'The webhook’s messages (the same objects as its deliveries), newest first, each with its attempts; ' +
            'narrowed by `status`, `event_type` and creation time (`since` inclusive, `until` exclusive), paged with `limit` and `cursor`.',
          params: WebhookParams,
          querystring: MessageListQuery,
          response: { 200: DeliveryList, ...errors },
        },
      },
      async (request) => listWebhookMessages(deps, accountOf(request), request.params.webhook_id, request.query),
    );

    app.post(
      '/webhooks/:webhook_id/recover',
      {
        config: { audit: 'webhook.messages_recovered' },
        schema: {
          tags,
          operationId: 'webhooks.recover',
          summary: 'Recover failed messages',
          description:
            'Queues every message that failed (all automatic attempts used) and was created in [`since`, `until`) again, ' +
            'sent oldest first with its original `webhook-id` and a fresh retry schedule. A message already queued by an ' +
            'earlier recovery is not queued twice. A disabled webhook’s recovered messages wait until it is re-enabled.',
          params: WebhookParams,
          body: RecoverBody,
          response: { 202: RecoverResult, ...errors },
        },
      },
      async (request, reply) =>
        reply.code(202).send(await recoverFailedMessages(deps, accountOf(request), request.params.webhook_id, request.body)),
    );

    app.post(
      '/webhooks/:webhook_id/messages/:message_id/replay',
      {
        config: { audit: 'webhook.message_replayed' },
        schema: {
          tags,
          operationId: 'webhooks.replayMessage',
          summary: 'Replay a message',
          description:
            'Sends one message again now, whatever its status (a new attempt, same body, same `webhook-id`), and returns it ' +
            'with the new attempt. The same operation as redeliver, under the messages name.',
          params: MessageParams,
          response: { 200: Delivery, ...errors, 409: ErrorResponse },
        },
      },
      async (request) => replayMessage(deps, accountOf(request), request.params.webhook_id, request.params.message_id),
    );
  };
