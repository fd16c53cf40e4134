import { type Kysely, type Selectable, sql } from 'kysely';
import type { Dialect } from '../../db/index.js';
import type { Database, WebhookAttemptsTable, WebhookDeliveriesTable, WebhooksTable } from '../../db/schema.js';
import { olderThanCursor } from '../../db/keyset.js';
import { claimWithLease } from '../../db/lease-claim.js';
import type { PageCursor } from '../../lib/pagination.js';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;
type Db = Kysely<Database>;

export const insertWebhook = (db: Db, row: WebhookRow) => db.insertInto('webhooks').values(row).execute();

export const findWebhook = (db: Db, accountId: string, id: string): Promise<WebhookRow | undefined> =>
  db.selectFrom('webhooks').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

export const findWebhookById = (db: Db, id: string): Promise<WebhookRow | undefined> =>
  db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

export const findWebhooksByIds = (db: Db, ids: string[]): Promise<WebhookRow[]> =>
  ids.length === 0 ? Promise.resolve([]) : db.selectFrom('webhooks').selectAll().where('id', 'in', ids).execute();

export const findAccountWebhooks = (db: Db, accountId: string): Promise<WebhookRow[]> =>
  db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId).orderBy('created_at').orderBy('id').execute();

function afterCursor<T extends { where(condition: ReturnType<typeof olderThanCursor>): T }>(
  query: T,
  cursor: PageCursor | null,
): T {
  return cursor ? query.where(olderThanCursor('created_at', 'id', cursor)) : query;
}

export const listWebhooks = (db: Db, accountId: string, cursor: PageCursor | null, limit: number) =>
  afterCursor(db.selectFrom('webhooks').selectAll().where('account_id', '=', accountId), cursor)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const updateWebhook = (db: Db, id: string, changes: Partial<WebhookRow>): Promise<WebhookRow | undefined> =>
  db.updateTable('webhooks').set(changes).where('id', '=', id).returningAll().executeTakeFirst();

export const deleteWebhook = async (db: Db, accountId: string, id: string): Promise<boolean> => {
  const result = await db.deleteFrom('webhooks').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
};

/** Adds `count` failures to the streak and returns the new streak length. */
export async function addFailures(db: Db, webhookId: string, count: number): Promise<number> {
  const row = await db
    .updateTable('webhooks')
    .set((eb) => ({ consecutive_failures: eb('consecutive_failures', '+', count) }))
    .where('id', '=', webhookId)
    .returning('consecutive_failures')
    .executeTakeFirst();
  return Number(row?.consecutive_failures ?? 0);
}

/** Disables an enabled webhook; true when this call disabled it. */
export async function disableEnabledWebhook(db: Db, webhookId: string, at: string, reason: string): Promise<boolean> {
  const result = await db
    .updateTable('webhooks')
    .set({ status: 'disabled', disabled_at: at, disabled_reason: reason, updated_at: at })
    .where('id', '=', webhookId)
    .where('status', '=', 'enabled')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const findEvent = (db: Db, id: string) => db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirst();

/** Inserts deliveries; a (webhook, event) pair that already has one is left alone (re-run fan-out). */
export const insertDeliveries = (db: Db, rows: DeliveryRow[]) =>
  rows.length === 0
    ? Promise.resolve()
    : db
        .insertInto('webhook_deliveries')
        .values(rows)
        .onConflict((oc) => oc.columns(['webhook_id', 'event_id']).doNothing())
        .execute();

/**
 * Claims up to `limit` due deliveries of enabled webhooks until `leaseUntil` (the shared lease
 * claim of src/db/lease-claim.ts). A delivery whose lease ran out (its worker died) is due again.
 * The claim is fair: at most `maxPerWebhook` deliveries of one webhook and `maxPerAccount` of one
 * account are in flight across all workers, and accounts take turns, so one account's slow receiver cannot hold up the others.
 * Within a webhook deliveries go oldest first (by when they are due, then when they were created).
 */
export const claimDueDeliveries = (
  db: Db,
  dialect: Dialect,
  input: { workerId: string; now: string; leaseUntil: string; limit: number; maxPerWebhook: number; maxPerAccount: number },
): Promise<DeliveryRow[]> =>
  claimWithLease<DeliveryRow>(db, dialect, {
    table: 'webhook_deliveries',
    alias: 'd',
    join: sql`join webhooks w on w.id = d.webhook_id`,
    due: sql`d.status = 'pending' and d.next_attempt_at <= ${input.now} and w.status = 'enabled'`,
    orderBy: sql`d.next_attempt_at, d.created_at, d.id`,
    fair: {
      keyColumn: 'webhook_id',
      owner: sql`w.account_id`,
      maxPerKey: input.maxPerWebhook,
      maxPerOwner: input.maxPerAccount,
      inFlightScope: sql`d.status = 'pending'`,
    },
    workerId: input.workerId,
    now: input.now,
    leaseUntil: input.leaseUntil,
    limit: input.limit,
  });

/**
 * Makes every waiting delivery of the webhook due at `now` (re-enabling). All get the same time,
 * so the claim's tie-break on creation sends them in the order their events happened.
 */
export const makePendingDeliveriesDue = async (db: Db, webhookId: string, now: string): Promise<number> => {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ next_attempt_at: now, updated_at: now })
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'pending')
    .where('trigger', '=', 'event')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
};

export const countAccountWebhooks = async (db: Db, accountId: string): Promise<number> => {
  const row = await db
    .selectFrom('webhooks')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
};

/** Claims one delivery (manual redeliver, test ping) unless another worker holds it. */
export const claimDelivery = async (db: Db, id: string, workerId: string, now: string, leaseUntil: string) => {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ locked_by: workerId, locked_until: leaseUntil })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
    .returningAll()
    .executeTakeFirst();
  return result;
};

/** Applies the outcome of an attempt if this worker still holds the claim. */
export const finishDelivery = async (db: Db, id: string, workerId: string, changes: Partial<DeliveryRow>) => {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ ...changes, locked_by: null, locked_until: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
};

export const findDelivery = (db: Db, webhookId: string, id: string) =>
  db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).where('webhook_id', '=', webhookId).executeTakeFirst();

/** Narrows the messages listing; every field optional (the deliveries listing passes none). */
export interface DeliveryFilters {
  status?: DeliveryRow['status'];
  eventType?: string;
  /** Created at or after, ISO UTC. */
  since?: string;
  /** Created before, ISO UTC. */
  until?: string;
}

export const listDeliveries = (
  db: Db,
  webhookId: string,
  cursor: PageCursor | null,
  limit: number,
  filters: DeliveryFilters = {},
) => {
  let query = db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.eventType) query = query.where('event_type', '=', filters.eventType);
  if (filters.since) query = query.where('created_at', '>=', filters.since);
  if (filters.until) query = query.where('created_at', '<', filters.until);
  return afterCursor(query, cursor).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
};

/**
 * One batch of a recovery: the next `limit` failed event deliveries of the webhook created in
 * [since, until), oldest first, after the (created_at, id) position `after`, queued again (pending, due
 * `now`, a fresh automatic schedule). Only rows still `failed` change, so two recoveries at once
 * queue each message once. Returns the last row seen (the next batch starts after it) and how many changed.
 */
export async function requeueFailedBatch(
  db: Db,
  input: {
    webhookId: string;
    since: string;
    until: string;
    after: { created_at: string; id: string } | null;
    now: string;
    limit: number;
  },
): Promise<{ last: { created_at: string; id: string } | null; queued: number }> {
  const { webhookId, since, until, after, now, limit } = input;
  let query = db
    .selectFrom('webhook_deliveries')
    .select(['id', 'created_at'])
    .where('webhook_id', '=', webhookId)
    .where('status', '=', 'failed')
    .where('trigger', '=', 'event')
    .where('created_at', '>=', since)
    .where('created_at', '<', until);
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)]),
      ]),
    );
  const rows = await query.orderBy('created_at').orderBy('id').limit(limit).execute();
  if (rows.length === 0) return { last: null, queued: 0 };
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempt_count: 0, next_attempt_at: now, updated_at: now })
    .where(
      'id',
      'in',
      rows.map((r) => r.id),
    )
    .where('status', '=', 'failed')
    .executeTakeFirst();
  return { last: rows[rows.length - 1]!, queued: Number(result.numUpdatedRows) };
}

/** Rows per insert: 10 columns each stays far below either database's limit on parameters. */
const ATTEMPTS_PER_INSERT = 100;

/** Inserts attempt rows, many to a statement. */
export async function insertAttempts(db: Db, rows: AttemptRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ATTEMPTS_PER_INSERT) {
    await db
      .insertInto('webhook_attempts')
      .values(rows.slice(i, i + ATTEMPTS_PER_INSERT))
      .execute();
  }
}

/** Marks deliveries succeeded and releases them, those that `workerId` still holds: one statement for a group. */
export const finishSucceededDeliveries = (db: Db, ids: string[], workerId: string, at: string) =>
  db
    .updateTable('webhook_deliveries')
    .set({ status: 'succeeded', next_attempt_at: null, updated_at: at, locked_by: null, locked_until: null })
    .where('id', 'in', ids)
    .where('locked_by', '=', workerId)
    .execute();

/** Sets the failure streak of webhooks, e.g. to 0 after a success. */
export const setFailures = (db: Db, webhookIds: string[], streak: number) =>
  db.updateTable('webhooks').set({ consecutive_failures: streak }).where('id', 'in', webhookIds).execute();

export const nextAttemptNumber = async (db: Db, deliveryId: string): Promise<number> => {
  const row = await db
    .selectFrom('webhook_attempts')
    .select((eb) => eb.fn.max('number').as('n'))
    .where('delivery_id', '=', deliveryId)
    .executeTakeFirst();
  return Number(row?.n ?? 0) + 1;
};

/** The next attempt's number of each delivery in `deliveryIds` (1 for one never attempted): one query for a claimed batch. */
export async function nextAttemptNumbers(db: Db, deliveryIds: string[]): Promise<Map<string, number>> {
  const numbers = new Map(deliveryIds.map((id) => [id, 1]));
  if (deliveryIds.length === 0) return numbers;
  const rows = await db
    .selectFrom('webhook_attempts')
    .select(['delivery_id', (eb) => eb.fn.max('number').as('n')])
    .where('delivery_id', 'in', deliveryIds)
    .groupBy('delivery_id')
    .execute();
  for (const row of rows) numbers.set(row.delivery_id, Number(row.n) + 1);
  return numbers;
}

export const listAttempts = (db: Db, deliveryIds: string[]): Promise<AttemptRow[]> =>
  deliveryIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('number').execute();

/** Retention: deletes deliveries (and, by cascade, their attempts) created before `before`. */
export async function deleteDeliveriesBefore(db: Db, before: string): Promise<number> {
  // Attempts first: cheap on both databases even where cascades are not enforced.
  await db
    .deleteFrom('webhook_attempts')
    .where('delivery_id', 'in', (eb) => eb.selectFrom('webhook_deliveries').select('id').where('created_at', '<', before))
    .execute();
  const result = await db.deleteFrom('webhook_deliveries').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Retention: events carry the same personal data as their deliveries. */
export async function deleteEventsBefore(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('events').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Deliveries whose next automatic attempt is due (the metrics' queue depth and age). */
export const dueDeliveryDepth = (db: Db, now: string) =>
  db
    .selectFrom('webhook_deliveries')
    .select([(eb) => eb.fn.countAll<number | string>().as('due'), (eb) => eb.fn.min('next_attempt_at').as('oldest')])
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst();
