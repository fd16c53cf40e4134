/**
 * Recording what attempts did: the attempt log rows, the delivery rows' new state and the
 * webhooks' failure streaks, for a group of finished sends in one transaction. One transaction
 * of three statements per send cost the worker more than the send itself; a group shares one
 * commit, one insert of its attempts and one update of its successes.
 *
 * The worker's `OutcomeBuffer` holds finished sends for a few milliseconds (or until a group is
 * full, or the runner claims again) before writing them. Until then the deliveries keep their
 * lease: if the process dies first, the lease runs out and they are sent again (at-least-once,
 * docs/webhooks.md).
 */
import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import {
  type AttemptRow,
  addFailures,
  type DeliveryRow,
  disableEnabledWebhook,
  finishDelivery,
  finishSucceededDeliveries,
  insertAttempts,
  setFailures,
} from './repo.js';

/** Spec §3: the 10th consecutive failed attempt disables the webhook. */
const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10;

/** A send that has ended, and what it changes. */
export interface FinishedAttempt {
  attempt: AttemptRow;
  webhook: { id: string; account_id: string };
  workerId: string;
  /** Automatic failures count toward the webhook's failure streak; any success resets it. */
  countsAsFailure: boolean;
  success: boolean;
  /** The delivery row's new state (`deliveryChanges`), applied if `workerId` still holds it. */
  changes: Partial<DeliveryRow>;
  finishedAt: Date;
}

type Kysely = Db['kysely'];

/**
 * The streak changes of one webhook's attempts, in the order they ended: failures before a
 * success still count (ten of them disable the webhook even if the eleventh succeeds).
 */
async function applyStreak(trx: Kysely, webhookId: string, attempts: FinishedAttempt[], disabled: Set<string>) {
  let failures = 0;
  let reset = false;
  const addAndCheck = async (count: number, at: Date) => {
    const streak = reset ? (await setFailures(trx, [webhookId], count), count) : await addFailures(trx, webhookId, count);
    if (
      streak >= DISABLE_AFTER_CONSECUTIVE_FAILURES &&
      (await disableEnabledWebhook(trx, webhookId, at.toISOString(), 'consecutive_failures'))
    )
      disabled.add(webhookId);
  };
  for (const one of attempts) {
    if (one.success) {
      if (failures > 0) await addAndCheck(failures, one.finishedAt);
      failures = 0;
      reset = true;
    } else if (one.countsAsFailure) {
      failures += 1;
    }
  }
  if (failures > 0) await addAndCheck(failures, attempts[attempts.length - 1]!.finishedAt);
  return reset && failures === 0;
}

/** Writes a group of finished attempts in one transaction; returns the webhooks it disabled. */
export async function recordAttempts(db: Db, finished: FinishedAttempt[]): Promise<Set<string>> {
  const disabled = new Set<string>();
  if (finished.length === 0) return disabled;
  await db.kysely.transaction().execute(async (trx) => {
    await insertAttempts(
      trx,
      finished.map((one) => one.attempt),
    );
    const succeededBy = new Map<string, FinishedAttempt[]>();
    for (const one of finished) {
      if (one.success) succeededBy.set(one.workerId, [...(succeededBy.get(one.workerId) ?? []), one]);
      else await finishDelivery(trx, one.attempt.delivery_id, one.workerId, one.changes);
    }
    for (const [workerId, group] of succeededBy) {
      const lastFinished = group.reduce((at, one) => (one.finishedAt > at ? one.finishedAt : at), group[0]!.finishedAt);
      await finishSucceededDeliveries(
        trx,
        group.map((one) => one.attempt.delivery_id),
        workerId,
        lastFinished.toISOString(),
      );
    }
    const byWebhook = new Map<string, FinishedAttempt[]>();
    for (const one of finished) byWebhook.set(one.webhook.id, [...(byWebhook.get(one.webhook.id) ?? []), one]);
    const toReset: string[] = [];
    for (const [webhookId, attempts] of byWebhook) {
      if (await applyStreak(trx, webhookId, attempts, disabled)) toReset.push(webhookId);
    }
    if (toReset.length > 0) await setFailures(trx, toReset, 0);
  });
  return disabled;
}

export const warnDisabled = (logger: Logger, finished: FinishedAttempt[], disabled: Set<string>) => {
  for (const webhookId of disabled) {
    const webhook = finished.find((one) => one.webhook.id === webhookId)!.webhook;
    logger.warn(
      { webhook: webhook.id, account: webhook.account_id },
      `webhook disabled after ${DISABLE_AFTER_CONSECUTIVE_FAILURES} consecutive failed attempts`,
    );
  }
};

/** How long a finished send waits for others to share its transaction, and how many fill one. */
const FLUSH_AFTER_MS = 5;
const FLUSH_AT = 64;

/**
 * Finished sends of one worker waiting to be written together (`recordAttempts`). `add`
 * resolves once the attempt is written; writes run one after another, in the order sends ended.
 */
export class OutcomeBuffer {
  private pending: FinishedAttempt[] = [];
  private waiters: { resolve(): void; reject(err: unknown): void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: { db: Db; logger: Logger }) {}

  /** Attempts ended and not yet written. */
  get size(): number {
    return this.pending.length;
  }

  add(finished: FinishedAttempt): Promise<void> {
    this.pending.push(finished);
    const written = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (this.pending.length >= FLUSH_AT) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS);
    return written;
  }

  /** Writes every attempt added so far; resolves when they (and earlier groups) are written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return this.writing;
    const group = this.pending;
    const waiters = this.waiters;
    this.pending = [];
    this.waiters = [];
    this.writing = this.writing.then(async () => {
      try {
        warnDisabled(this.deps.logger, group, await recordAttempts(this.deps.db, group));
        for (const waiter of waiters) waiter.resolve();
      } catch (err) {
        for (const waiter of waiters) waiter.reject(err);
      }
    });
    return this.writing;
  }
}
