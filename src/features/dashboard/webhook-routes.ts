/**
 * The dashboard's webhook pages, through the same webhooks service the /v1 API uses: list,
 * register and edit (with an optional mutual TLS client certificate; the key never shown again),
 * delete, test event, secret rotation (shown once), the delivery log with replay of a message,
 * recovery of failed messages by window or range, and re-enabling a webhook that was disabled automatically.
 * Registered inside the dashboard plugin, so its session, form-token and error handling apply.
 */
import { auditDetail, auditObject } from '../../http/audit.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import {
  deleteWebhookPage,
  type FormError,
  rotateSecretPage,
  type WebhookInput,
  webhookFormPage,
  webhookSecretPage,
} from '../../web/views/dashboard/webhook-forms.js';
import { webhookDetailPage, webhooksPage } from '../../web/views/dashboard/webhooks.js';
import { MAX_DESCRIPTION_LENGTH, MAX_URL_LENGTH, SUBSCRIBABLE } from '../webhooks/schemas.js';
import { parseKind, parsePayloadFormat } from '../webhooks/destinations.js';
import { listWebhookDeliveryLog, sendTestEvent } from '../webhooks/deliveries-service.js';
import { recoverFailedMessages, replayMessage } from '../webhooks/messages-service.js';
import {
  createWebhook,
  deleteWebhook,
  enableWebhook,
  getWebhookHealth,
  listWebhookHealth,
  rotateWebhookSecret,
  updateWebhook,
} from '../webhooks/service.js';
import {
  clientCertificateChangeOf,
  clientCertificateOf,
  CUSTOM_RECOVER_WINDOW,
  DEFAULT_RECOVER_WINDOW,
  type RecoverFieldError,
  type RecoverFields,
  recoverRangeOf,
  recoverRefusalOf,
  recoverWindowsFor,
  utcText,
} from './webhook-form-fields.js';
import { allowOwnScripts, formField, formValues, noticeFrom, redirect, requireSession, sendPage, sessionOf } from './http.js';

const NOTICES: Record<string, string> = {
  'webhook-enabled': 'The webhook is enabled again. Deliveries that were waiting are being sent now.',
  'webhook-updated': 'The webhook is saved.',
  'webhook-deleted': 'The webhook is deleted. Nothing more is sent to it.',
  'test-delivered': 'The test event was delivered: the receiver answered with a 2xx status.',
  'test-failed': 'The test event was not delivered. Its attempt is below.',
  replayed: 'The message was sent again and the receiver accepted it.',
  'replay-failed': 'The message was sent again and failed. The attempt is below; automatic retries go on as scheduled.',
  recovered: 'The failed messages of that range are queued again and are being sent in the order their events happened.',
  'recovered-none': 'No failed messages in that range to queue (messages an earlier recovery queued are not queued twice).',
};

/** A range the recover form used, as its redirect carries it (`since`, `until`); anything else is not shown. */
const RANGE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The recover confirmation states the range it used, in UTC; other notices are fixed texts. */
function noticeOf(query: unknown): string | null {
  const { notice, since, until } = (query ?? {}) as Record<string, unknown>;
  const isTime = (value: unknown): value is string => typeof value === 'string' && RANGE_TIME.test(value);
  if ((notice === 'recovered' || notice === 'recovered-none') && isTime(since) && isTime(until)) {
    const range = `created from ${utcText(since)} to ${utcText(until)}`;
    return notice === 'recovered'
      ? `The failed messages ${range} are queued again and are being sent in the order their events happened.`
      : `No failed messages ${range} to queue (messages an earlier recovery queued are not queued twice).`;
  }
  return noticeFrom(NOTICES, query);
}

const RECENT_DELIVERIES = 20;
const FORM_FIELDS = new Set(['url', 'events', 'description', 'kind', 'payload', 'tls_client_certificate', 'tls_client_key']);
/**
 * The register and edit forms carry a client certificate and key (each up to 32 KiB as the API
 * takes them, up to three bytes per character once form-encoded) beside the other fields.
 */
const WEBHOOK_FORM_BODY_LIMIT = 16 * 1024 + 2 * 3 * 32 * 1024;

type IdRoute = { Params: { id: string } };
type EditedWebhook = { id: string; url: string; has_tls_client_certificate: boolean };

export interface PageContext {
  styleUrl: string;
  viewerOf: (request: FastifyRequest) => Viewer | null;
}

/** The form's fields as typed, kept to show them again when the form is refused. */
const inputOf = (request: FastifyRequest): WebhookInput => ({
  url: (formField(request, 'url') ?? '').trim(),
  events: formValues(request, 'events'),
  description: (formField(request, 'description') ?? '').trim(),
  kind: formField(request, 'kind') ?? 'standard',
  payload: formField(request, 'payload') ?? 'full',
  tlsCertificate: formField(request, 'tls_client_certificate') ?? '',
  tlsRemove: formField(request, 'tls_remove') === 'yes',
});

const certificateFieldsOf = (request: FastifyRequest) => ({
  certificate: formField(request, 'tls_client_certificate'),
  key: formField(request, 'tls_client_key'),
});

/** The recover form as sent, kept to show it again when refused. */
const recoverFieldsOf = (request: FastifyRequest): RecoverFields => ({
  window: formField(request, 'window'),
  since: formField(request, 'since'),
  until: formField(request, 'until'),
  sinceOffset: formField(request, 'since_offset'),
  untilOffset: formField(request, 'until_offset'),
});

/** What the audit entry says about the certificate: set or removed, never the certificate or its key. */
function auditClientCertificate(request: FastifyRequest, fields: { tls_client_certificate?: string | null }) {
  if (fields.tls_client_certificate === undefined) return;
  auditDetail(request, { tls_client_certificate: fields.tls_client_certificate === null ? 'removed' : 'set' });
}

/** A service refusal placed next to the field it names (`events[2]` → the events), or above the form. */
function formErrorOf(error: AppError): FormError {
  const field = error.param?.replace(/\[\d+\]$/, '') ?? null;
  return { field: field !== null && FORM_FIELDS.has(field) ? (field as FormError['field']) : null, message: error.message };
}

export function webhookRoutes(deps: Deps, page: PageContext) {
  return async (app: FastifyInstance) => {
    const { styleUrl } = page;
    const copyScriptUrl = deps.assets.url('copy.ts');
    const recoverScriptUrl = deps.assets.url('recover-range.ts');
    const retentionDays = deps.config.webhooks.logRetentionDays;
    const viewer = (request: FastifyRequest) => page.viewerOf(request) as Viewer;
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;
    const limits = { url: MAX_URL_LENGTH, description: MAX_DESCRIPTION_LENGTH };

    const sendForm = (
      request: FastifyRequest,
      reply: FastifyReply,
      form: { webhook: EditedWebhook | null; input: WebhookInput; error?: FormError },
      status = 200,
    ) =>
      sendPage(reply, webhookFormPage({ styleUrl, viewer: viewer(request), eventKinds: SUBSCRIBABLE, limits, ...form }), status);

    /** Runs a form's service call; a refusal (4xx but 404) shows the form again with the input and the reason. */
    const submitForm = async <T>(
      request: FastifyRequest,
      reply: FastifyReply,
      webhook: EditedWebhook | null,
      action: () => Promise<T>,
    ): Promise<{ done: T } | { refused: FastifyReply }> => {
      try {
        return { done: await action() };
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) throw error;
        const form = { webhook, input: inputOf(request), error: formErrorOf(error) };
        return { refused: await sendForm(request, reply, form, error.status) };
      }
    };

    /** The form's fields as the service takes them (an empty description clears it). */
    const fieldsOf = (request: FastifyRequest) => {
      const input = inputOf(request);
      return {
        url: input.url,
        events: input.events,
        description: input.description === '' ? null : input.description,
        kind: parseKind(input.kind),
        payload: parsePayloadFormat(input.payload),
      };
    };

    app.get('/webhooks', { preHandler: requireSession }, async (request, reply) =>
      sendPage(
        reply,
        webhooksPage({
          styleUrl,
          viewer: viewer(request),
          webhooks: (await listWebhookHealth(deps, accountOf(request))).reverse(),
          notice: noticeFrom(NOTICES, request.query),
        }),
      ),
    );

    app.get('/webhooks/new', { preHandler: requireSession }, async (request, reply) =>
      sendForm(request, reply, {
        webhook: null,
        input: {
          url: '',
          events: ['recording.completed'],
          description: '',
          kind: 'standard',
          payload: 'full',
          tlsCertificate: '',
          tlsRemove: false,
        },
      }),
    );

    const formRoute = (audit: string) => ({ preHandler: requireSession, bodyLimit: WEBHOOK_FORM_BODY_LIMIT, config: { audit } });

    app.post('/webhooks', formRoute('webhook.created'), async (request, reply) => {
      const result = await submitForm(request, reply, null, async () => {
        const fields = { ...fieldsOf(request), ...clientCertificateOf(certificateFieldsOf(request)) };
        return { created: await createWebhook(deps, accountOf(request), fields), fields };
      });
      if ('refused' in result) return result.refused;
      const { created, fields } = result.done;
      auditObject(request, created.id);
      auditClientCertificate(request, fields);
      allowOwnScripts(reply);
      const secretPage = webhookSecretPage({
        styleUrl,
        viewer: viewer(request),
        copyScriptUrl,
        webhook: created,
        secret: created.secret,
        reason: 'created',
      });
      return sendPage(reply, secretPage, 201);
    });

    /** A webhook's page; with `recover`, its recover form shown again with what was sent and why it was refused. */
    const sendDetail = async (
      request: FastifyRequest<IdRoute>,
      reply: FastifyReply,
      recover?: { fields: RecoverFields; error: RecoverFieldError },
    ) => {
      const accountId = accountOf(request);
      const webhook = await getWebhookHealth(deps, accountId, request.params.id);
      const cursor = (request.query as { cursor?: unknown } | undefined)?.cursor;
      const deliveries = await listWebhookDeliveryLog(deps, accountId, webhook.id, {
        limit: RECENT_DELIVERIES,
        ...(typeof cursor === 'string' ? { cursor } : {}),
      });
      allowOwnScripts(reply);
      const page = webhookDetailPage({
        styleUrl,
        viewer: viewer(request),
        webhook,
        deliveries: deliveries.data,
        olderDeliveriesHref: deliveries.next_cursor
          ? `/dashboard/webhooks/${webhook.id}?cursor=${encodeURIComponent(deliveries.next_cursor)}`
          : null,
        notice: recover ? null : noticeOf(request.query),
        recover: {
          scriptUrl: recoverScriptUrl,
          windows: recoverWindowsFor(retentionDays),
          window: recover?.fields.window ?? (recover ? CUSTOM_RECOVER_WINDOW : DEFAULT_RECOVER_WINDOW),
          since: recover?.fields.since ?? '',
          until: recover?.fields.until ?? '',
          error: recover?.error ?? null,
        },
      });
      return sendPage(reply, page, recover ? 400 : 200);
    };

    app.get<IdRoute>('/webhooks/:id', { preHandler: requireSession }, (request, reply) => sendDetail(request, reply));

    app.get<IdRoute>('/webhooks/:id/edit', { preHandler: requireSession }, async (request, reply) => {
      const webhook = await getWebhookHealth(deps, accountOf(request), request.params.id);
      return sendForm(request, reply, {
        webhook,
        input: {
          url: webhook.url,
          events: webhook.events,
          description: webhook.description ?? '',
          kind: webhook.kind,
          payload: webhook.payload,
          tlsCertificate: '',
          tlsRemove: false,
        },
      });
    });

    app.post<IdRoute>('/webhooks/:id/edit', formRoute('webhook.updated'), async (request, reply) => {
      const webhook = await getWebhookHealth(deps, accountOf(request), request.params.id);
      const result = await submitForm(request, reply, webhook, async () => {
        const fields = {
          ...fieldsOf(request),
          ...clientCertificateChangeOf({ ...certificateFieldsOf(request), remove: formField(request, 'tls_remove') === 'yes' }),
        };
        await updateWebhook(deps, accountOf(request), webhook.id, fields);
        return fields;
      });
      if ('refused' in result) return result.refused;
      auditClientCertificate(request, result.done);
      return redirect(reply, `/dashboard/webhooks/${webhook.id}?notice=webhook-updated`);
    });

    app.get<IdRoute>('/webhooks/:id/delete', { preHandler: requireSession }, async (request, reply) =>
      sendPage(
        reply,
        deleteWebhookPage({
          styleUrl,
          viewer: viewer(request),
          webhook: await getWebhookHealth(deps, accountOf(request), request.params.id),
        }),
      ),
    );

    app.post<IdRoute>(
      '/webhooks/:id/delete',
      { preHandler: requireSession, config: { audit: 'webhook.deleted' } },
      async (request, reply) => {
        await deleteWebhook(deps, accountOf(request), request.params.id);
        return redirect(reply, '/dashboard/webhooks?notice=webhook-deleted');
      },
    );

    app.post<IdRoute>(
      '/webhooks/:id/test',
      { preHandler: requireSession, config: { audit: 'webhook.test_sent' } },
      async (request, reply) => {
        const delivery = await sendTestEvent(deps, accountOf(request), request.params.id);
        const notice = delivery.status === 'succeeded' ? 'test-delivered' : 'test-failed';
        return redirect(reply, `/dashboard/webhooks/${delivery.webhook_id}?notice=${notice}`);
      },
    );

    app.get<IdRoute>('/webhooks/:id/rotate-secret', { preHandler: requireSession }, async (request, reply) =>
      sendPage(
        reply,
        rotateSecretPage({
          styleUrl,
          viewer: viewer(request),
          webhook: await getWebhookHealth(deps, accountOf(request), request.params.id),
        }),
      ),
    );

    app.post<IdRoute>(
      '/webhooks/:id/rotate-secret',
      { preHandler: requireSession, config: { audit: 'webhook.secret_rotated' } },
      async (request, reply) => {
        const rotated = await rotateWebhookSecret(deps, accountOf(request), request.params.id);
        allowOwnScripts(reply);
        return sendPage(
          reply,
          webhookSecretPage({
            styleUrl,
            viewer: viewer(request),
            copyScriptUrl,
            webhook: rotated,
            secret: rotated.secret,
            reason: 'rotated',
          }),
        );
      },
    );

    // The API's replay (`POST /v1/webhooks/{id}/messages/{message_id}/replay`), under the same name and audit action.
    app.post<{ Params: { id: string; messageId: string } }>(
      '/webhooks/:id/messages/:messageId/replay',
      { preHandler: requireSession, config: { audit: 'webhook.message_replayed' } },
      async (request, reply) => {
        const message = await replayMessage(deps, accountOf(request), request.params.id, request.params.messageId);
        const succeeded = message.attempts.at(-1)?.error === null;
        return redirect(reply, `/dashboard/webhooks/${message.webhook_id}?notice=${succeeded ? 'replayed' : 'replay-failed'}`);
      },
    );

    app.post<IdRoute>(
      '/webhooks/:id/recover',
      { preHandler: requireSession, config: { audit: 'webhook.messages_recovered' } },
      async (request, reply) => {
        const webhook = await getWebhookHealth(deps, accountOf(request), request.params.id);
        const fields = recoverFieldsOf(request);
        const context = { now: deps.clock.now(), retentionDays };
        const range = recoverRangeOf(fields, context);
        if ('error' in range) return sendDetail(request, reply, { fields, error: range.error });
        try {
          const { queued } = await recoverFailedMessages(deps, accountOf(request), webhook.id, range);
          const query = new URLSearchParams({ notice: queued > 0 ? 'recovered' : 'recovered-none', ...range });
          return redirect(reply, `/dashboard/webhooks/${webhook.id}?${query}`);
        } catch (error) {
          if (!(error instanceof AppError) || error.status !== 400) throw error;
          return sendDetail(request, reply, { fields, error: recoverRefusalOf(range, context) });
        }
      },
    );

    app.post<IdRoute>(
      '/webhooks/:id/enable',
      { preHandler: requireSession, config: { audit: 'webhook.enabled' } },
      async (request, reply) => {
        await enableWebhook(deps, accountOf(request), request.params.id);
        return redirect(reply, '/dashboard/webhooks?notice=webhook-enabled');
      },
    );
  };
}
