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
  claimDueDeliveries,
  type DeliveryRow,
  findWebhooksByIds,
  nextAttemptNumber,
  nextAttemptNumbers,
  type WebhookRow,
} from './repo.js';
import { type FinishedAttempt, OutcomeBuffer, recordAttempts, warnDisabled } from './attempt-outcomes.js';
import type { Metrics } from '../../lib/metrics.js';
import { signatureHeaders } from './signing.js';
import { clientTlsOf } from './client-certificates.js';

export interface WebhookDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** `baseUrl`: the API's own URL, for the object URLs of thin events. */
  /** `ssoEncryptionKey`, `dataDir`: the secret box that seals webhooks' client keys. */
  config: { webhooks: WebhookConfig; baseUrl: string; ssoEncryptionKey: string | null; dataDir: string };
  /** This process's worker, woken after a commit that makes deliveries due (re-enabling). */
  jobsWakeup: { notify(): void };
  /** Resolver override for the outbound client (tests). */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for receivers' certificates, instead of the system's (tests). */
  trustedCa?: string;
  metrics?: Pick<Metrics, 'webhookDeliveries' | 'webhookDeliveryLag'>;
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

/**
 * Deliveries of one account in flight at once, across all workers: half a worker's send slots
 * (at least one webhook's share), so an account whose receivers all answer slowly leaves the
 * other half to everyone else however many webhooks it has.
 */
export const maxInFlightPerAccount = (webhooks: Pick<WebhookConfig, 'concurrency' | 'maxInFlightPerWebhook'>): number =>
  Math.max(webhooks.maxInFlightPerWebhook, Math.ceil(webhooks.concurrency / 2));

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
      proxyUrl: webhooks.outboundProxyUrl,
      connectTimeoutMs: webhooks.connectTimeoutMs,
      timeoutMs: webhooks.timeoutMs,
      ...(deps.lookup ? { lookup: deps.lookup } : {}),
      tls: { ...clientTlsOf(webhook, deps.config), ...(deps.trustedCa ? { ca: deps.trustedCa } : {}) },
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

type AttemptInput = {
  webhook: WebhookRow;
  delivery: DeliveryRow;
  trigger: AttemptTrigger;
  workerId: string;
  /** Known when the delivery was claimed in a batch (one query for all); read here otherwise. */
  attemptNumber?: number;
};

/** Sends one claimed delivery and returns the attempt, not yet recorded (`recordAttempts`). */
async function sendAttempt(deps: WebhookDeps, input: AttemptInput): Promise<FinishedAttempt> {
  const { webhook, delivery, trigger, workerId } = input;
  const number = input.attemptNumber ?? (await nextAttemptNumber(deps.db.kysely, delivery.id));
  const attemptedAt = deps.clock.now();
  const outcome = await send(deps, webhook, delivery, number);
  const finishedAt = deps.clock.now();
  const success = isSuccess(outcome);
  deps.metrics?.webhookDeliveries.inc({ outcome: success ? 'succeeded' : 'failed' });
  if (success)
    deps.metrics?.webhookDeliveryLag.observe(Math.max(0, finishedAt.getTime() - Date.parse(delivery.created_at)) / 1000);
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
  return {
    attempt,
    webhook,
    workerId,
    success,
    countsAsFailure: !success && trigger === 'automatic',
    changes: deliveryChanges(delivery, trigger, success, finishedAt),
    finishedAt,
  };
}

/**
 * Sends one claimed delivery and records the attempt before returning it. Automatic attempts
 * move the retry schedule and the webhook's failure streak; any success resets the streak;
 * manual and test attempts never add to it.
 */
export async function attemptDelivery(deps: WebhookDeps, input: AttemptInput): Promise<AttemptRow> {
  const finished = await sendAttempt(deps, input);
  warnDisabled(deps.logger, [finished], await recordAttempts(deps.db, [finished]));
  return finished.attempt;
}

interface Claimed {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  attemptNumber: number;
}

/** Claims up to `limit` due deliveries (fairly, see `claimDueDeliveries`) with their webhooks. */
async function claimDue(deps: WebhookDeps, workerId: string, limit: number): Promise<Claimed[]> {
  const now = deps.clock.now();
  const claimed = await claimDueDeliveries(deps.db.kysely, deps.db.dialect, {
    workerId,
    now: now.toISOString(),
    leaseUntil: new Date(now.getTime() + deps.config.webhooks.claimLeaseMs).toISOString(),
    limit,
    maxPerWebhook: deps.config.webhooks.maxInFlightPerWebhook,
    maxPerAccount: maxInFlightPerAccount(deps.config.webhooks),
  });
  if (claimed.length === 0) return [];
  const [webhookRows, attemptNumbers] = await Promise.all([
    findWebhooksByIds(deps.db.kysely, [...new Set(claimed.map((d) => d.webhook_id))]),
    nextAttemptNumbers(
      deps.db.kysely,
      claimed.map((d) => d.id),
    ),
  ]);
  const webhooks = new Map(webhookRows.map((w) => [w.id, w]));
  return claimed.flatMap((delivery) => {
    const webhook = webhooks.get(delivery.webhook_id);
    // Deleted meanwhile: its deliveries went with it.
    return webhook ? [{ delivery, webhook, attemptNumber: attemptNumbers.get(delivery.id) ?? 1 }] : [];
  });
}

/** Sends one claimed delivery; never throws, so one failure cannot stop the others. Null when the send itself failed. */
async function sendClaimed(deps: WebhookDeps, { delivery, webhook, attemptNumber }: Claimed, workerId: string) {
  try {
    return await sendAttempt(deps, { webhook, delivery, trigger: 'automatic', workerId, attemptNumber });
  } catch (err) {
    // The claim lapses and another pass retries the delivery.
    deps.logger.error({ err, delivery: delivery.id }, 'sending a webhook attempt failed');
    return null;
  }
}

const recordingFailed = (deps: WebhookDeps) => (err: unknown) =>
  // The claims lapse and another pass sends those deliveries again.
  deps.logger.error({ err }, 'recording webhook attempts failed');

/**
 * Claims due deliveries (at most `limit`) and sends them concurrently, waiting for every send.
 * Returns how many were claimed. Tests call it directly with a manual clock; workers use
 * `DeliveryRunner`, which refills each slot as soon as its send ends.
 */
export async function deliverDueWebhooks(deps: WebhookDeps, input: { workerId: string; limit?: number }): Promise<number> {
  const claimed = await claimDue(deps, input.workerId, input.limit ?? deps.config.webhooks.concurrency);
  const sent = await Promise.all(claimed.map((one) => sendClaimed(deps, one, input.workerId)));
  const finished = sent.filter((one) => one !== null);
  await recordAttempts(deps.db, finished)
    .then((disabled) => warnDisabled(deps.logger, finished, disabled))
    .catch(recordingFailed(deps));
  return claimed.length;
}

/**
 * Sends deliveries for one worker with `WEBHOOK_CONCURRENCY` slots. Slots are refilled while
 * other sends are still under way, not when a whole batch has ended: otherwise one receiver
 * that answers after 14 s would hold every other delivery of the batch's successors for 14 s.
 * `kick()` claims work for every free slot; it is called by the periodic task, after an event
 * fan-out and when this process commits new work. Sends that end kick only in groups: once a
 * quarter of the slots, or half of the sends the last claim left under way (one busy webhook
 * never fills a quarter), have ended since, or none is busy. The fair claim ranks every due row,
 * so claiming after each send cost more CPU than the send itself; a batch fills several at once.
 * Finished sends are recorded in groups (`OutcomeBuffer`), always before the next claim, so the
 * claim counts only sends still under way; `drain()` (worker shutdown) records every send first.
 */
/** Sends that end before the runner claims again, given the slots and how many the last claim left under way. */
const refillAfter = (slots: number, leftSending: number) =>
  Math.max(1, Math.min(Math.floor(slots / 4), Math.ceil(leftSending / 2)));

export class DeliveryRunner {
  private inFlight = 0;
  private filling: Promise<void> | null = null;
  private again = false;
  /** Sends under way when the last claim ended, and sends ended since: when to claim again. */
  private leftSending = 0;
  private endedSinceClaim = 0;
  private readonly outcomes: OutcomeBuffer;
  private stopping = false;
  private idle: (() => void) | null = null;

  constructor(
    private readonly deps: WebhookDeps,
    readonly workerId: string,
  ) {
    this.outcomes = new OutcomeBuffer(deps);
  }

  /** Deliveries this runner is sending now. */
  get sending(): number {
    return this.inFlight;
  }

  /** Stops claiming, waits for the sends under way and records them (worker shutdown). */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.filling;
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    await this.outcomes.flush();
  }

  kick(): Promise<void> {
    if (this.stopping) return Promise.resolve();
    if (this.filling) {
      this.again = true;
      return this.filling;
    }
    this.filling = this.fill().finally(() => {
      this.filling = null;
    });
    return this.filling;
  }

  private async fill(): Promise<void> {
    const slots = this.deps.config.webhooks.concurrency;
    do {
      this.again = false;
      try {
        while (this.inFlight < slots && !this.stopping) {
          const free = slots - this.inFlight;
          this.endedSinceClaim = 0;
          await this.outcomes.flush();
          const claimed = await claimDue(this.deps, this.workerId, free);
          for (const one of claimed) this.start(one);
          this.leftSending = this.inFlight;
          // Fewer than asked: the rest is not due, or waits for its webhook's or account's turn.
          if (claimed.length < free) break;
        }
      } catch (err) {
        this.deps.logger.error({ err }, 'webhook delivery pass failed');
      }
    } while (this.again);
  }

  private start(one: Claimed): void {
    this.inFlight += 1;
    void sendClaimed(this.deps, one, this.workerId).then((finished) => {
      if (finished) void this.outcomes.add(finished).catch(recordingFailed(this.deps));
      this.inFlight -= 1;
      this.endedSinceClaim += 1;
      if (this.inFlight === 0) this.idle?.();
      const due = refillAfter(this.deps.config.webhooks.concurrency, this.leftSending);
      if (this.inFlight === 0 || this.endedSinceClaim >= due) void this.kick();
    });
  }
}
