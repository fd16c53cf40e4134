/**
 * Webhooks: registration, secrets, event fan-out, test pings, redelivery, re-enabling and log
 * retention. The delivery engine itself is in `delivery.ts`.
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { checkOutboundUrl, OutboundError, SNIPPET_BYTES } from '../../integrations/outbound-http.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { attemptDelivery, type WebhookDeps } from './delivery.js';
import {
  type AttemptRow,
  claimDelivery,
  dueDeliveryDepth,
  countAccountWebhooks,
  type DeliveryRow,
  deleteDeliveriesBefore,
  deleteEventsBefore,
  deleteWebhook as deleteWebhookRow,
  findAccountWebhooks,
  findDelivery,
  findEvent,
  findWebhook,
  findWebhookById,
  insertDeliveries,
  insertWebhook,
  listAttempts,
  listDeliveries,
  listWebhooks as listWebhookRows,
  makePendingDeliveriesDue,
  updateWebhook as updateWebhookRow,
  type WebhookRow,
} from './repo.js';
import {
  type Attempt,
  type CreateWebhookBody,
  type Delivery,
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  SUBSCRIBABLE,
  TEST_EVENT,
  type UpdateWebhookBody,
  type Webhook,
  type WebhookWithSecret,
} from './schemas.js';
import { newWebhookSecret } from './signing.js';

export type { WebhookDeps } from './delivery.js';

/** A rotated-out secret keeps signing for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const WEBHOOK_ID = /^wh_[0-9a-f]{32}$/;
const DELIVERY_ID = /^whd_[0-9a-f]{32}$/;

const hexId = (prefix: string) => `${prefix}_${newId().replace(/-/g, '')}`;

function checkDescription(description: string | null | undefined): string | null | undefined {
  if (typeof description === 'string' && [...description].length > MAX_DESCRIPTION_LENGTH) {
    throw new AppError('parameter_invalid', `The description must be at most ${MAX_DESCRIPTION_LENGTH} characters.`, {
      param: 'description',
    });
  }
  return description;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    status: row.status === 'disabled' ? 'disabled' : 'enabled',
    consecutive_failures: row.consecutive_failures,
    disabled_at: row.disabled_at,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

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

function checkEvents(events: string[]): string[] {
  if (events.length === 0) throw new AppError('parameter_missing', 'Choose at least one event kind.', { param: 'events' });
  const allowed: readonly string[] = SUBSCRIBABLE;
  events.forEach((kind, index) => {
    if (!allowed.includes(kind)) {
      throw new AppError('parameter_invalid', `Unknown event kind "${kind}". Allowed: ${SUBSCRIBABLE.join(', ')}.`, {
        param: `events[${index}]`,
      });
    }
  });
  return [...new Set(events)];
}

const URL_ERRORS: Record<string, { code: string; message: string }> = {
  invalid_url: { code: 'parameter_invalid', message: 'Invalid field "url"' },
  forbidden_address: { code: 'url_not_public', message: 'The webhook URL is not allowed' },
  dns_failed: { code: 'url_unresolvable', message: 'The webhook URL cannot be used' },
  timeout: { code: 'url_unresolvable', message: 'The webhook URL cannot be used' },
};

async function checkUrl(deps: WebhookDeps, url: string): Promise<string> {
  // The API's schema stops these first; the dashboard's forms rely on this check.
  if (url.length === 0) throw new AppError('parameter_missing', 'Enter the URL of the receiver.', { param: 'url' });
  if ([...url].length > MAX_URL_LENGTH) {
    throw new AppError('parameter_invalid', `The URL must be at most ${MAX_URL_LENGTH} characters.`, { param: 'url' });
  }
  try {
    await checkOutboundUrl(url, {
      allowPrivate: deps.config.webhooks.allowPrivateUrls,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
    });
    return url;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const mapped = URL_ERRORS[error.code] ?? URL_ERRORS.invalid_url!;
    throw new AppError(mapped.code, `${mapped.message}: ${error.message}`, { param: 'url', status: 400 });
  }
}

async function requireWebhook(deps: WebhookDeps, accountId: string | null, id: string): Promise<WebhookRow> {
  const row = !WEBHOOK_ID.test(id)
    ? undefined
    : accountId === null
      ? await findWebhookById(deps.db.kysely, id)
      : await findWebhook(deps.db.kysely, accountId, id);
  if (!row) throw notFound('webhook', 'webhook_id');
  return row;
}

/** A later timestamp than `previous`, even within the same millisecond. */
const laterThan = (deps: WebhookDeps, previous: string) =>
  new Date(Math.max(deps.clock.now().getTime(), Date.parse(previous) + 1)).toISOString();

/**
 * Registers a webhook: the URL must be HTTPS and resolve to public addresses only (unless
 * WEBHOOK_ALLOW_PRIVATE_URLS), events must be known kinds. Returns the webhook with its
 * secret, which is shown only here and on rotation.
 */
export async function createWebhook(deps: WebhookDeps, accountId: string, input: CreateWebhookBody): Promise<WebhookWithSecret> {
  const events = checkEvents(input.events);
  const url = await checkUrl(deps, input.url);
  const description = checkDescription(input.description) ?? null;
  // Each webhook may hold MAX_IN_FLIGHT_PER_WEBHOOK send slots, so the cap bounds one account's share.
  const max = deps.config.webhooks.maxPerAccount;
  if ((await countAccountWebhooks(deps.db.kysely, accountId)) >= max) {
    throw new AppError('webhook_limit_reached', `This account already has the maximum of ${max} webhooks; delete one first.`);
  }
  const now = deps.clock.now().toISOString();
  const row: WebhookRow = {
    id: hexId('wh'),
    account_id: accountId,
    url,
    events: JSON.stringify(events),
    description,
    status: 'enabled',
    disabled_reason: null,
    disabled_at: null,
    consecutive_failures: 0,
    secret: newWebhookSecret(),
    previous_secret: null,
    previous_secret_expires_at: null,
    created_at: now,
    updated_at: now,
  };
  await insertWebhook(deps.db.kysely, row);
  return { ...toWebhook(row), secret: row.secret };
}

/** A page of the account's webhooks, newest first. Secrets are never listed. */
export async function listWebhooks(deps: WebhookDeps, accountId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 50;
  const rows = await listWebhookRows(deps.db.kysely, accountId, decodeCursor(query.cursor), limit + 1);
  return toPage(rows, limit, toWebhook);
}

/** A webhook with its delivery health (failure streak, when and why it was disabled), as the API shows it. */
export type WebhookHealth = Webhook;

/** Every webhook of the account with its failure streak and why it was disabled (dashboard), oldest first. */
export async function listWebhookHealth(deps: WebhookDeps, accountId: string): Promise<WebhookHealth[]> {
  return (await findAccountWebhooks(deps.db.kysely, accountId)).map(toWebhook);
}

/** One webhook of the account with its health, or 404 (also for other accounts' and malformed ids). */
export async function getWebhookHealth(deps: WebhookDeps, accountId: string, id: string): Promise<WebhookHealth> {
  return toWebhook(await requireWebhook(deps, accountId, id));
}

/** The account's webhook, or 404 (also for other accounts' and malformed ids). */
export async function getWebhook(deps: WebhookDeps, accountId: string, id: string): Promise<Webhook> {
  return toWebhook(await requireWebhook(deps, accountId, id));
}

/** Changes url (checked like at registration), events and/or description. Status is not changed here. */
export async function updateWebhook(
  deps: WebhookDeps,
  accountId: string,
  id: string,
  input: UpdateWebhookBody,
): Promise<Webhook> {
  const current = await requireWebhook(deps, accountId, id);
  const changes: Partial<WebhookRow> = { updated_at: laterThan(deps, current.updated_at) };
  if (input.events !== undefined) changes.events = JSON.stringify(checkEvents(input.events));
  if (input.url !== undefined) changes.url = await checkUrl(deps, input.url);
  if (input.description !== undefined) changes.description = checkDescription(input.description) ?? null;
  const row = await updateWebhookRow(deps.db.kysely, current.id, changes);
  if (!row) throw notFound('webhook', 'webhook_id');
  return toWebhook(row);
}

/** Deletes the webhook with its delivery log; nothing more is sent to it. */
export async function deleteWebhook(deps: WebhookDeps, accountId: string, id: string) {
  if (!WEBHOOK_ID.test(id) || !(await deleteWebhookRow(deps.db.kysely, accountId, id))) throw notFound('webhook', 'webhook_id');
  return { deleted: true as const, id };
}

/**
 * Issues a new secret. The previous one keeps signing next to it for 24 h (see signing.ts for
 * which header carries which), so receivers can switch without dropping deliveries.
 */
export async function rotateWebhookSecret(deps: WebhookDeps, accountId: string, id: string): Promise<WebhookWithSecret> {
  const current = await requireWebhook(deps, accountId, id);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const row = await updateWebhookRow(deps.db.kysely, current.id, {
    secret,
    previous_secret: current.secret,
    previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
    updated_at: laterThan(deps, current.updated_at),
  });
  if (!row) throw notFound('webhook', 'webhook_id');
  return { ...toWebhook(row), secret };
}

/**
 * Re-enables a webhook (the dashboard action; also `cli webhooks enable <id>`): status
 * `enabled`, failure streak reset, and its pending deliveries due at once, oldest first, in the
 * same transaction (a webhook enabled with deliveries still hours into their back-off would look
 * recovered while sending nothing). This process's worker is woken after the commit.
 * `accountId` null = operator scope (any account).
 */
export async function enableWebhook(deps: WebhookDeps, accountId: string | null, id: string): Promise<Webhook> {
  const current = await requireWebhook(deps, accountId, id);
  const now = deps.clock.now().toISOString();
  const row = await withTransaction(deps, async (tx) => {
    const updated = await updateWebhookRow(tx.trx, current.id, {
      status: 'enabled',
      disabled_at: null,
      disabled_reason: null,
      consecutive_failures: 0,
      updated_at: laterThan(deps, current.updated_at),
    });
    if (updated && (await makePendingDeliveriesDue(tx.trx, current.id, now)) > 0) tx.wakeWorkerAfterCommit();
    return updated;
  });
  if (!row) throw notFound('webhook', 'webhook_id');
  return toWebhook(row);
}

/** The exact body of every delivery: spec §6 `{event, timestamp, data}`. */
export const eventBody = (type: string, timestamp: string, data: unknown): string =>
  JSON.stringify({ event: type, timestamp, data });

const subscribes = (webhook: WebhookRow, type: string) => {
  const events = JSON.parse(webhook.events) as string[];
  return events.includes(type) || events.includes('*');
};

/**
 * Fan-out of one recorded event (job `events.dispatch`): one delivery per webhook of the
 * event's account subscribed to its kind, enabled or disabled (a disabled webhook's
 * deliveries wait for it to be re-enabled). Idempotent: a re-run adds nothing twice.
 * Returns how many webhooks match.
 */
export async function dispatchEvent(deps: WebhookDeps, eventId: string): Promise<number> {
  const db = deps.db.kysely;
  const event = await findEvent(db, eventId);
  if (!event) return 0; // purged by retention before it was dispatched
  const matching = (await findAccountWebhooks(db, event.account_id)).filter((w) => subscribes(w, event.type));
  const now = deps.clock.now().toISOString();
  const body = eventBody(event.type, event.created_at, JSON.parse(event.data));
  await insertDeliveries(
    db,
    matching.map((webhook) => ({
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
  return matching.length;
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
    payload: eventBody(TEST_EVENT, now, { webhook_id: webhook.id }),
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
export async function redeliverDelivery(deps: WebhookDeps, accountId: string, webhookId: string, deliveryId: string) {
  const webhook = await requireWebhook(deps, accountId, webhookId);
  const delivery = DELIVERY_ID.test(deliveryId) ? await findDelivery(deps.db.kysely, webhook.id, deliveryId) : undefined;
  if (!delivery) throw notFound('delivery', 'delivery_id');
  return sendNow(deps, webhook, delivery, 'manual');
}

/** A page of the webhook's delivery rows, newest first, each with its attempt rows. */
async function deliveryRowsPage(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string },
) {
  const webhook = await requireWebhook(deps, accountId, webhookId);
  const limit = query.limit ?? 50;
  const rows = await listDeliveries(deps.db.kysely, webhook.id, decodeCursor(query.cursor), limit + 1);
  const attempts = await listAttempts(
    deps.db.kysely,
    rows.slice(0, limit).map((r) => r.id),
  );
  const byDelivery = new Map<string, AttemptRow[]>();
  for (const attempt of attempts) byDelivery.set(attempt.delivery_id, [...(byDelivery.get(attempt.delivery_id) ?? []), attempt]);
  return toPage(rows, limit, (row) => ({ row, attempts: byDelivery.get(row.id) ?? [] }));
}

/** A page of the webhook's deliveries, newest first, each with its attempts. */
export async function listWebhookDeliveries(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  query: { limit?: number; cursor?: string },
) {
  const page = await deliveryRowsPage(deps, accountId, webhookId, query);
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
  const page = await deliveryRowsPage(deps, accountId, webhookId, query);
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
