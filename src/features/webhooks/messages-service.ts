/**
 * Recovery after an outage: queueing a webhook's failed messages again by time range, and the
 * messages listing with its filters. A message is a delivery (same row, same id, sent as the
 * `webhook-id` header on every attempt, so receivers deduplicate replays and recoveries).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { invalid } from '../../errors.js';
import type { WebhookDeps } from './delivery.js';
import { listWebhookDeliveries, redeliverDelivery } from './deliveries-service.js';
import { requeueFailedBatch } from './repo.js';
import type { MessageListQuery, RecoverBody } from './schemas.js';
import { requireWebhook } from './service.js';

/** Messages queued per statement: each batch is a short write, and the event loop runs between batches. */
export const RECOVER_BATCH = 500;

const DAY_MS = 86_400_000;

/** The range checks of `recover`: since before until, and nothing older than the log retention keeps. */
function recoveryRange(deps: WebhookDeps, body: RecoverBody): { since: string; until: string } {
  const now = deps.clock.now();
  const since = new Date(body.since);
  const until = body.until === undefined ? now : new Date(body.until);
  if (since >= until) throw invalid('`since` must be before `until` (or before now when `until` is omitted).', 'since');
  const kept = new Date(now.getTime() - deps.config.webhooks.logRetentionDays * DAY_MS);
  if (since < kept)
    throw invalid(
      `Messages are kept for ${deps.config.webhooks.logRetentionDays} days; \`since\` must be ${kept.toISOString()} or later.`,
      'since',
    );
  return { since: since.toISOString(), until: until.toISOString() };
}

/**
 * Queues every failed message of the webhook created in [since, until) again, oldest first:
 * pending, due now, with a fresh automatic retry schedule. All get the same due time, so the
 * delivery claim's tie-break on creation sends them in the order their events happened. A
 * disabled webhook's recovered messages wait with its other pending ones until it is re-enabled.
 * Returns how many this call queued; messages already pending (an earlier recovery) are not
 * counted or queued twice.
 */
export async function recoverFailedMessages(
  deps: WebhookDeps,
  accountId: string,
  webhookId: string,
  body: RecoverBody,
): Promise<{ queued: number }> {
  const webhook = await requireWebhook(deps, accountId, webhookId);
  const { since, until } = recoveryRange(deps, body);
  const now = deps.clock.now().toISOString();
  let queued = 0;
  let after: { created_at: string; id: string } | null = null;
  for (;;) {
    const batch = await requeueFailedBatch(deps.db.kysely, {
      webhookId: webhook.id,
      since,
      until,
      after,
      now,
      limit: RECOVER_BATCH,
    });
    queued += batch.queued;
    if (!batch.last) break;
    after = batch.last;
    // A synchronous SQLite driver would otherwise hold the loop for the whole range.
    await yieldToLoop();
  }
  if (queued > 0) deps.jobsWakeup.notify();
  return { queued };
}

/** Sends one message again now (any status): a new attempt, the same body and `webhook-id`. */
export const replayMessage = (deps: WebhookDeps, accountId: string, webhookId: string, messageId: string) =>
  redeliverDelivery(deps, accountId, webhookId, messageId, 'message_id');

/** A page of the webhook's messages, newest first, narrowed by status, event kind and creation time. */
export function listWebhookMessages(deps: WebhookDeps, accountId: string, webhookId: string, query: MessageListQuery) {
  const { limit, cursor, status, event_type: eventType, since, until } = query;
  return listWebhookDeliveries(
    deps,
    accountId,
    webhookId,
    { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) },
    {
      ...(status ? { status } : {}),
      ...(eventType ? { eventType } : {}),
      ...(since ? { since: new Date(since).toISOString() } : {}),
      ...(until ? { until: new Date(until).toISOString() } : {}),
    },
  );
}
