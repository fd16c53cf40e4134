/**
 * What is sent to webhooks: the fan-out of a recorded event into deliveries, test pings and
 * redelivery on request, the delivery log as the API and the dashboard show it, and its
 * retention. Webhooks themselves are managed in `service.ts`; sending is `delivery.ts`.
 */
import { AppError, notFound } from '../../errors.js';
import { SNIPPET_BYTES } from '../../integrations/outbound-http.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { attemptDelivery, type WebhookDeps } from './delivery.js';
import {
  type AttemptRow,
  claimDelivery,
  dueDeliveryDepth,
  type DeliveryFilters,
  type DeliveryRow,
  deleteDeliveriesBefore,
  deleteEventsBefore,
  findAccountWebhooks,
  findDelivery,
  findEvent,
  insertDeliveries,
  listAttempts,
  listDeliveries,
  type WebhookRow,
} from './repo.js';
import { type Attempt, type Delivery, TEST_EVENT } from './schemas.js';
import { eventBody, type EventForBody, webhookBody } from './payloads.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../i18n/index.js';
import { requireLiveCollection } from '../collections/service.js';
import { hexId, requireWebhook } from './service.js';

const DELIVERY_ID = /^whd_[0-9a-f]{32}$/;

const toAttempt = (row: AttemptRow): Attempt => ({
  attempt: row.number,
  trigger: row.trigger,
  attempted_at: row.attempted_at,
  response_status: row.response_status,
  duration_ms: row.duration_ms,
  error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
  response_body: row.response_body,
});

const toDelivery = (row: DeliveryRow, attempts: AttemptRow[]): Delivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event_id: row.event_id,
  event: row.event_type,
  status: row.status,
  attempt_count: attempts.length,
  next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
  created_at: row.created_at,
  attempts: attempts.map(toAttempt),
});

/** The collection's language for chat messages; English when it is gone or archived meanwhile. */
async function collectionLocale(deps: WebhookDeps, accountId: string, collectionId: unknown): Promise<Locale> {
  if (typeof collectionId !== 'string') return DEFAULT_LOCALE;
  try {
    const { language } = await requireLiveCollection(deps, accountId, collectionId);
    return isLocale(language) ? language : DEFAULT_LOCALE;
  } catch (error) {
    if (error instanceof AppError) return DEFAULT_LOCALE;
    throw error;
  }
}

const subscribes = (webhook: WebhookRow, type: string) => {
  const events = JSON.parse(webhook.events) as string[];
  return events.includes(type) || events.includes('*');
};

/**
 * Fan-out of one recorded event (job `events.dispatch`): one delivery per webhook of the
 * event's account subscribed to its kind and created no later than the event, enabled or disabled (a disabled webhook's
 * deliveries wait for it to be re-enabled). Idempotent: a re-run adds nothing twice.
 * Returns how many webhooks match.
 */
export async function dispatchEvent(deps: WebhookDeps, eventId: string): Promise<number> {
  const db = deps.db.kysely;
  const event = await findEvent(db, eventId);
  if (!event) return 0; // purged by retention before it was dispatched
  // A webhook hears of what happens once it exists: an event recorded before it was created (and
  // fanned out later, as this job runs after the event's transaction) is not its to receive.
  const matching = (await findAccountWebhooks(db, event.account_id)).filter(
    (w) => subscribes(w, event.type) && w.created_at <= event.created_at,
  );
  const now = deps.clock.now().toISOString();
  const content: EventForBody = { type: event.type, timestamp: event.created_at, data: JSON.parse(event.data) };
  // Each webhook's body is made once, here, and the same bytes go out on every attempt.
  const locale = matching.some((w) => w.kind !== 'standard')
    ? await collectionLocale(deps, event.account_id, content.data.collection_id)
    : DEFAULT_LOCALE;
  const bodies = matching.flatMap((webhook) => {
    const body = webhookBody(webhook, content, { baseUrl: deps.config.baseUrl, locale });
    return body === null ? [] : [{ webhook, body }];
  });
  await insertDeliveries(
    db,
    bodies.map(({ webhook, body }) => ({
      id: hexId('whd'),
      webhook_id: webhook.id,
      event_id: event.id,
      event_type: event.type,
      payload: body,
      trigger: 'event',
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: now,
      locked_by: null,
      locked_until: null,
      created_at: now,
      updated_at: now,
    })),
  );
  return bodies.length;
}

async function deliveryWithAttempts(deps: WebhookDeps, row: DeliveryRow): Promise<Delivery> {
  return toDelivery(row, await listAttempts(deps.db.kysely, [row.id]));
}

async function sendNow(deps: WebhookDeps, webhook: WebhookRow, delivery: DeliveryRow, trigger: 'manual' | 'test') {
  const workerId = `${trigger}:${newId()}`;
  const now = deps.clock.now();
  const lease = new Date(now.getTime() + deps.config.webhooks.claimLeaseMs).toISOString();
  const claimed = await claimDelivery(deps.db.kysely, delivery.id, workerId, now.toISOString(), lease);
  if (!claimed) throw new AppError('conflict', 'This delivery is being sent right now; try again in a moment.');
  await attemptDelivery(deps, { webhook, delivery: claimed, trigger, workerId });
  const after = await findDelivery(deps.db.kysely, webhook.id, delivery.id);
  return deliveryWithAttempts(deps, after ?? claimed);
}

/**
 * Sends a `webhook.test` event to the webhook now (whatever its status and subscriptions) and
 * returns the delivery with the attempt's result. Test deliveries are logged but never
 * retried, and a failed test does not count toward auto-disable.
 */
export async function sendTestEvent(deps: WebhookDeps, accountId: string, id: string): Promise<Delivery> {
  const webhook = await requireWebhook(deps, accountId, id);
  const now = deps.clock.now().toISOString();
  const eventId = hexId('evt');
  const delivery: DeliveryRow = {
    id: hexId('whd'),
    webhook_id: webhook.id,
    event_id: eventId,
    event_type: TEST_EVENT,
    // Chat destinations get the test message in English: a webhook belongs to no one collection.
    payload:
      webhookBody(
        webhook,
        { type: TEST_EVENT, timestamp: now, data: { webhook_id: webhook.id } },
        { baseUrl: deps.config.baseUrl, locale: DEFAULT_LOCALE },
      ) ?? eventBody(TEST_EVENT, now, { webhook_id: webhook.id }),
    trigger: 'test',
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: null,
    locked_by: null,
    locked_until: null,
    created_at: now,
    updated_at: now,
  };
  await insertDeliveries(deps.db.kysely, [delivery]);
  return sendNow(deps, webhook, delivery, 'test');
}

/**
 * Sends one delivery again now, with the same body and `webhook-id`, and returns it with the
 * new attempt. Success marks it succeeded (stopping automatic retries); a failure leaves the
 * automatic schedule as it was. 409 while a worker is sending it.
 */
export async function redeliverDelivery(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  deliveryId: string,
  /** The URL parameter a 404 names: `message_id` when called as replay. */
  param: 'delivery_id' | 'message_id' = 'delivery_id',
) {
  const webhook = await requireWebhook(deps, accountId, webhookId);
  const delivery = DELIVERY_ID.test(deliveryId) ? await findDelivery(deps.db.kysely, webhook.id, deliveryId) : undefined;
  if (!delivery) throw notFound(param === 'message_id' ? 'message' : 'delivery', param);
  return sendNow(deps, webhook, delivery, 'manual');
}

/** A page of the webhook's delivery rows, newest first, each with its attempt rows. */
async function deliveryRowsPage(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string },
  filters: DeliveryFilters,
) {
  const webhook = await requireWebhook(deps, accountId, webhookId);
  const limit = query.limit ?? 50;
  const rows = await listDeliveries(deps.db.kysely, webhook.id, decodeCursor(query.cursor), limit + 1, filters);
  const attempts = await listAttempts(
    deps.db.kysely,
    rows.slice(0, limit).map((r) => r.id),
  );
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  return toPage(rows, limit, (row) => ({ row, attempts: byDelivery.get(row.id) ?? [] }));
}

/** A page of the webhook's deliveries (messages), newest first, each with its attempts; `filters` narrow it. */
export async function listWebhookDeliveries(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string },
  filters: DeliveryFilters = {},
) {
  const page = await deliveryRowsPage(deps, accountId, webhookId, query, filters);
  return { ...page, data: page.data.map(({ row, attempts }) => toDelivery(row, attempts)) };
}

/** A delivery as the dashboard shows it: the exact body sent, and whether each stored response was cut. */
export interface DeliveryLogEntry extends Omit<Delivery, 'attempts'> {
  request_body: string;
  attempts: (Attempt & { response_body_truncated: boolean })[];
}

/**
 * Only the first SNIPPET_BYTES of a response are read, cut back to a whole character. A stored
 * body that long reached the limit, so the receiver may have sent more: the only case where
 * what is shown can differ from what was answered.
 */
const reachedSnippetLimit = (body: string) => Buffer.byteLength(body, 'utf8') > SNIPPET_BYTES - 4;

/**
 * The dashboard's delivery log: `listWebhookDeliveries` plus the exact request body of each
 * delivery and, per attempt, whether its stored response body reached the 2 KB limit.
 */
export async function listWebhookDeliveryLog(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string },
) {
  const page = await deliveryRowsPage(deps, accountId, webhookId, query, {});
  return {
    ...page,
    data: page.data.map(({ row, attempts }): DeliveryLogEntry => {
      const delivery = toDelivery(row, attempts);
      return {
        ...delivery,
        request_body: row.payload,
        attempts: delivery.attempts.map((a) => ({ ...a, response_body_truncated: reachedSnippetLimit(a.response_body) })),
      };
    }),
  };
}

/**
 * Retention: deletes deliveries, attempts and events older than WEBHOOK_LOG_RETENTION_DAYS
 * (they hold names and e-mail addresses), whatever their status. Returns rows deleted.
 */
export async function purgeWebhookLogs(deps: WebhookDeps): Promise<{ deliveries: number; events: number }> {
  const before = new Date(deps.clock.now().getTime() - deps.config.webhooks.logRetentionDays * 86_400_000).toISOString();
  const deliveries = await deleteDeliveriesBefore(deps.db.kysely, before);
  const events = await deleteEventsBefore(deps.db.kysely, before);
  return { deliveries, events };
}

/** How many deliveries are due now, and since when the oldest has waited (for the metrics). */
export async function dueDeliveries(deps: Pick<WebhookDeps, 'db' | 'clock'>): Promise<{ due: number; oldest: string | null }> {
  const row = await dueDeliveryDepth(deps.db.kysely, deps.clock.now().toISOString());
  return { due: Number(row?.due ?? 0), oldest: row?.oldest ?? null };
}
