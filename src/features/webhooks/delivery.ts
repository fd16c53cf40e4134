/**
 * The delivery engine: claims due deliveries, sends them with the SSRF-safe client, records
 * each attempt, and applies the retry schedule and the auto-disable rule. The delivery row is
 * the outbox, the queue entry and the log at once; workers coordinate only through the claim
 * (`locked_by`/`locked_until`), so any number of processes can run it.
 */
import type { Logger } from 'pino';
import type { WebhookConfig } from '../../config.js';
import type { Db } from '../../db/index.js';
import { type HostLookup, OutboundError, type OutboundResponse, sendOutbound } from '../../integrations/outbound-http.js';
import type { Clock } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import {
  type AttemptRow,
  addFailure,
  claimDueDeliveries,
  type DeliveryRow,
  disableEnabledWebhook,
  findWebhooksByIds,
  finishDelivery,
  insertAttempt,
  nextAttemptNumber,
  resetFailures,
  type WebhookRow,
} from './repo.js';
import { signatureHeaders } from './signing.js';

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  config: { webhooks: WebhookConfig };
  /** Resolver override for the outbound client (tests). */
  lookup?: HostLookup;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** Delay before automatic attempt n+1 (index n): immediate, 30 s, 2 min, then up to 24 h (docs/webhooks.md). */
export const RETRY_DELAYS_MS = [
  0,
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  24 * HOUR,
];
export const MAX_AUTOMATIC_ATTEMPTS = RETRY_DELAYS_MS.length;
/** Spec §3: the 10th consecutive failed attempt disables the webhook. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10;

export type AttemptTrigger = 'automatic' | 'manual' | 'test';

interface Outcome {
  response: OutboundResponse | null;
  errorCode: string | null;
  errorMessage: string | null;
  durationMs: number;
}

const isSuccess = (outcome: Outcome) => outcome.errorCode === null;

async function send(deps: WebhookDeps, webhook: WebhookRow, delivery: DeliveryRow, attemptNumber: number): Promise<Outcome> {
  const now = deps.clock.now();
  const previousValid =
    webhook.previous_secret !== null &&
    webhook.previous_secret_expires_at !== null &&
    webhook.previous_secret_expires_at > now.toISOString();
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'voicename-webhooks/1',
    'x-service-event': delivery.event_type,
    'x-service-delivery-attempt': String(attemptNumber),
    ...signatureHeaders(
      { current: webhook.secret, previous: previousValid ? webhook.previous_secret : null },
      { id: delivery.id, timestampSeconds: Math.floor(now.getTime() / 1000), body: delivery.payload },
    ),
  };
  const started = performance.now();
  const { webhooks } = deps.config;
  try {
    const response = await sendOutbound({
      url: webhook.url,
      headers,
      body: delivery.payload,
      allowPrivate: webhooks.allowPrivateUrls,
      connectTimeoutMs: webhooks.connectTimeoutMs,
      timeoutMs: webhooks.timeoutMs,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
    });
    const status = response.status;
    if (status >= 200 && status < 300) return { response, errorCode: null, errorMessage: null, durationMs: response.durationMs };
    if (status >= 300 && status < 400) {
      return {
        response,
        errorCode: 'redirect',
        errorMessage: `Redirect ${status} not followed.`,
        durationMs: response.durationMs,
      };
    }
    return { response, errorCode: 'http_status', errorMessage: `Receiver answered ${status}.`, durationMs: response.durationMs };
  } catch (error) {
    const durationMs = Math.round(performance.now() - started);
    if (error instanceof OutboundError) return { response: null, errorCode: error.code, errorMessage: error.message, durationMs };
    deps.logger.error({ err: error, delivery: delivery.id }, 'webhook send failed unexpectedly');
    return { response: null, errorCode: 'network_error', errorMessage: 'Unexpected error while sending.', durationMs };
  }
}

/** What an attempt's outcome does to the delivery row. */
function deliveryChanges(delivery: DeliveryRow, trigger: AttemptTrigger, success: boolean, at: Date): Partial<DeliveryRow> {
  const updated_at = at.toISOString();
  if (success) return { status: 'succeeded', next_attempt_at: null, updated_at };
  if (trigger === 'test') return { status: 'failed', next_attempt_at: null, updated_at };
  if (trigger === 'manual') return { updated_at }; // a failed manual try leaves the automatic schedule as it was
  const attempts = delivery.attempt_count + 1;
  if (attempts >= MAX_AUTOMATIC_ATTEMPTS) return { status: 'failed', attempt_count: attempts, next_attempt_at: null, updated_at };
  return {
    attempt_count: attempts,
    next_attempt_at: new Date(at.getTime() + RETRY_DELAYS_MS[attempts]!).toISOString(),
    updated_at,
  };
}

/**
 * Sends one claimed delivery and records the attempt. Automatic attempts move the retry
 * schedule and the webhook's failure streak; any success resets the streak; manual and test
 * attempts never add to it. Returns the attempt row.
 */
export async function attemptDelivery(
  deps: WebhookDeps,
  input: { webhook: WebhookRow; delivery: DeliveryRow; trigger: AttemptTrigger; workerId: string },
): Promise<AttemptRow> {
  const { webhook, delivery, trigger, workerId } = input;
  const db = deps.db.kysely;
  const number = await nextAttemptNumber(db, delivery.id);
  const attemptedAt = deps.clock.now();
  const outcome = await send(deps, webhook, delivery, number);
  const finishedAt = deps.clock.now();
  const success = isSuccess(outcome);
  const attempt: AttemptRow = {
    id: `wha_${newId().replace(/-/g, '')}`,
    delivery_id: delivery.id,
    number,
    trigger,
    attempted_at: attemptedAt.toISOString(),
    response_status: outcome.response?.status ?? null,
    duration_ms: outcome.durationMs,
    error_code: outcome.errorCode,
    error_message: outcome.errorMessage,
    response_body: outcome.response?.bodySnippet ?? '',
  };
  let disabled = false;
  await db.transaction().execute(async (trx) => {
    await insertAttempt(trx, attempt);
    await finishDelivery(trx, delivery.id, workerId, deliveryChanges(delivery, trigger, success, finishedAt));
    if (success) {
      await resetFailures(trx, webhook.id);
    } else if (trigger === 'automatic') {
      const streak = await addFailure(trx, webhook.id);
      if (streak >= DISABLE_AFTER_CONSECUTIVE_FAILURES) {
        disabled = await disableEnabledWebhook(trx, webhook.id, finishedAt.toISOString(), 'consecutive_failures');
      }
    }
  });
  if (disabled) {
    deps.logger.warn(
      { webhook: webhook.id, account: webhook.account_id },
      `webhook disabled after ${DISABLE_AFTER_CONSECUTIVE_FAILURES} consecutive failed attempts`,
    );
  }
  return attempt;
}

/**
 * Claims due deliveries (at most `limit`) and sends them concurrently. Returns how many were
 * claimed. Tests call it directly with a manual clock; workers call it through `DeliveryRunner`.
 */
export async function deliverDueWebhooks(deps: WebhookDeps, input: { workerId: string; limit?: number }): Promise<number> {
  const now = deps.clock.now();
  const claimed = await claimDueDeliveries(deps.db.kysely, deps.db.dialect, {
    workerId: input.workerId,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + deps.config.webhooks.claimLeaseMs).toISOString(),
    limit: input.limit ?? deps.config.webhooks.concurrency,
  });
  if (claimed.length === 0) return 0;
  const webhooks = new Map(
    (await findWebhooksByIds(deps.db.kysely, [...new Set(claimed.map((d) => d.webhook_id))])).map((w) => [w.id, w]),
  );
  await Promise.all(
    claimed.map(async (delivery) => {
      const webhook = webhooks.get(delivery.webhook_id);
      if (!webhook) return; // deleted meanwhile; its deliveries went with it
      try {
        await attemptDelivery(deps, { webhook, delivery, trigger: 'automatic', workerId: input.workerId });
      } catch (err) {
        // The claim lapses and another pass retries the delivery.
        deps.logger.error({ err, delivery: delivery.id }, 'recording a webhook attempt failed');
      }
    }),
  );
  return claimed.length;
}

/**
 * Runs delivery passes for one worker: one pass at a time, repeating while passes find work.
 * `kick()` is called by the periodic task and right after an event fan-out (lower latency).
 */
export class DeliveryRunner {
  private running: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly deps: WebhookDeps,
    readonly workerId: string,
  ) {}

  kick(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        while ((await deliverDueWebhooks(this.deps, { workerId: this.workerId })) > 0) {
          // keep going while passes find due deliveries
        }
      } catch (err) {
        this.deps.logger.error({ err }, 'webhook delivery pass failed');
      }
    } while (this.again);
  }
}
