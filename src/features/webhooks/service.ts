/**
 * Webhooks as endpoints an account manages: registration and its checks, listing, changes,
 * secrets, deletion and re-enabling. What is sent to them (event fan-out, test pings,
 * redelivery, the delivery log and its retention) is in `deliveries-service.ts`, the delivery
 * engine itself in `delivery.ts`.
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { checkOutboundUrl, OutboundError } from '../../integrations/outbound-http.js';
import { newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import type { WebhookDeps } from './delivery.js';
import {
  countAccountWebhooks,
  deleteWebhook as deleteWebhookRow,
  findAccountWebhooks,
  findWebhook,
  findWebhookById,
  insertWebhook,
  listWebhooks as listWebhookRows,
  makePendingDeliveriesDue,
  updateWebhook as updateWebhookRow,
  type WebhookRow,
} from './repo.js';
import {
  type CreateWebhookBody,
  MAX_DESCRIPTION_LENGTH,
  MAX_URL_LENGTH,
  SUBSCRIBABLE,
  type UpdateWebhookBody,
  type Webhook,
  type WebhookWithSecret,
} from './schemas.js';
import { newWebhookSecret } from './signing.js';
import { checkDestination } from './destinations.js';
import { clientCertificateColumns } from './client-certificates.js';

export type { WebhookDeps } from './delivery.js';

/** A rotated-out secret keeps signing for this long. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const WEBHOOK_ID = /^wh_[0-9a-f]{32}$/;

/** An id as the API shows it: `prefix_` and 32 hex digits. */
export const hexId = (prefix: string) => `${prefix}_${newId().replace(/-/g, '')}`;

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
    kind: row.kind,
    payload: row.payload_format,
    has_tls_client_certificate: row.tls_client_certificate !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

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

/** The webhook (of the account, or of any with `accountId` null), or 404, also for malformed ids. */
export async function requireWebhook(deps: WebhookDeps, accountId: string | null, id: string): Promise<WebhookRow> {
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
  const kind = input.kind ?? 'standard';
  const payload = input.payload ?? 'full';
  checkDestination({ kind, payload, url: input.url, events }, { allowPrivateUrls: deps.config.webhooks.allowPrivateUrls });
  const url = await checkUrl(deps, input.url);
  const description = checkDescription(input.description) ?? null;
  // Each webhook may hold WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK send slots, so the cap bounds one account's share.
  const max = deps.config.webhooks.maxPerAccount;
  if ((await countAccountWebhooks(deps.db.kysely, accountId)) >= max) {
    throw new AppError('webhook_limit_reached', `This account already has the maximum of ${max} webhooks; delete one first.`);
  }
  const id = hexId('wh');
  const certificate = clientCertificateColumns(input, { webhookId: id, url, now: deps.clock.now(), config: deps.config });
  const now = deps.clock.now().toISOString();
  const row: WebhookRow = {
    id,
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
    kind,
    payload_format: payload,
    tls_client_certificate: certificate?.tls_client_certificate ?? null,
    tls_client_key_sealed: certificate?.tls_client_key_sealed ?? null,
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

/** Changes url (checked like at registration), events, description, kind, payload format and/or client certificate. Status is not changed here. */
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
  if (input.kind !== undefined) changes.kind = input.kind;
  if (input.payload !== undefined) changes.payload_format = input.payload;
  Object.assign(
    changes,
    clientCertificateColumns(input, {
      webhookId: current.id,
      url: changes.url ?? current.url,
      now: deps.clock.now(),
      config: deps.config,
    }),
  );
  // The webhook as it would be after the change must still fit its kind.
  checkDestination(
    {
      kind: changes.kind ?? current.kind,
      payload: changes.payload_format ?? current.payload_format,
      url: changes.url ?? current.url,
      events: JSON.parse(changes.events ?? current.events) as string[],
    },
    { allowPrivateUrls: deps.config.webhooks.allowPrivateUrls },
  );
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
