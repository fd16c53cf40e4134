/**
 * The message sender: claims queued messages with a lease (fairly between accounts), sends each
 * through the message channel stored on its row (src/integrations/channels: e-mail today), and
 * records the outcome with an `invitation.sent` or `invitation.failed` event. Failures the
 * channel calls temporary are retried with backoff; permanent ones fail at once. The same rules
 * hold on every channel, as do the throttle and unsubscribe.
 *
 * Throttle (`MAIL_RATE_PER_MINUTE`, over every channel): a pass claims no more than the rate
 * minus what every worker sent or holds in the last minute (read from the table, so the limit
 * holds across processes), and this process spaces its sends evenly (60 s / rate apart). Sign-in
 * mail does not go through here and is never held up by a big batch of invitations.
 */
import type { Logger } from 'pino';
import { type TransactionDeps, withTransaction } from '../../db/transaction.js';
import { type ChannelMessage, MessageFailure } from '../../integrations/channels/channel.js';
import type { MessageChannels } from '../../integrations/channels/registry.js';
import { recordEvent } from '../events/service.js';
import { recordUrl } from '../users/service.js';
import {
  claimDueMessages,
  findMessageContext,
  finishMessage,
  type MailRow,
  mailInLastMinute,
  type MessageContext,
  retryMessageLater,
  setPersonMailStatus,
  settleSkippedPerson,
  STILL_TO_RECORD,
} from './repo.js';
import { mailLocale, personMessageData } from './mail-content.js';
import { unsubscribeUrl } from './service.js';

export type MessageSenderDeps = TransactionDeps & {
  logger: Logger;
  channels: MessageChannels;
  config: { baseUrl: string; dashboard: { mailRatePerMinute: number } };
};

/** Attempts per message before a temporary failure counts as final. */
export const MAIL_MAX_ATTEMPTS = 5;
const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000];
const LEASE_MS = 2 * 60_000;
const UNTHROTTLED_BATCH = 20;

/** A channel's classified failure as it is, anything else (a bug in a channel) as a temporary one. */
const asFailure = (error: unknown): MessageFailure =>
  error instanceof MessageFailure
    ? error
    : new MessageFailure(true, (error instanceof Error ? error.message : String(error)).slice(0, 500), { cause: error });

export interface Pacing {
  now(): number;
  sleep(ms: number): Promise<unknown>;
}

const realPacing: Pacing = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

export class MessageSender {
  private passing: Promise<void> | null = null;
  private again = false;
  /** When this process may send its next throttled message (real time, ms). */
  private nextSendAt = 0;

  constructor(
    private readonly deps: MessageSenderDeps,
    readonly workerId: string,
    /** Real time for spacing throttled sends; tests pass a fake one that records the waits. */
    private readonly pacing: Pacing = realPacing,
  ) {}

  /** Sends what is due now; concurrent calls share one run (and ask it to look again). */
  kick(): Promise<void> {
    if (this.passing) {
      this.again = true;
      return this.passing;
    }
    this.passing = this.drain().finally(() => {
      this.passing = null;
    });
    return this.passing;
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        while (await this.pass()) {
          // A full batch: more may be due.
        }
      } catch (err) {
        this.deps.logger.error({ err }, 'mail pass failed');
      }
    } while (this.again);
  }

  /** Claims and sends one batch; true when the batch was full (look again at once). */
  async pass(): Promise<boolean> {
    const { db, clock } = this.deps;
    const rate = this.deps.config.dashboard.mailRatePerMinute;
    const now = clock.now();
    let limit = UNTHROTTLED_BATCH;
    if (rate > 0) {
      // Five seconds' worth at most, so a stopping worker finishes its batch quickly.
      limit = Math.min(Math.max(1, Math.ceil(rate / 12)), rate - (await mailInLastMinute(db.kysely, now)));
      if (limit <= 0) return false;
    }
    const claimed = await claimDueMessages(db.kysely, db.dialect, {
      workerId: this.workerId,
      now,
      leaseUntil: new Date(now.getTime() + LEASE_MS),
      limit,
    });
    if (rate === 0) await Promise.all(claimed.map((message) => this.sendOne(message)));
    else {
      for (const message of claimed) {
        const wait = this.nextSendAt - this.pacing.now();
        if (wait > 0) await this.pacing.sleep(wait);
        this.nextSendAt = Math.max(this.nextSendAt, this.pacing.now()) + 60_000 / rate;
        await this.sendOne(message);
      }
    }
    return claimed.length === limit;
  }

  private async sendOne(message: MailRow): Promise<void> {
    const { deps } = this;
    try {
      const context = await findMessageContext(deps.db.kysely, message.user_id);
      if (!context || this.noLongerWanted(message, context)) {
        await withTransaction(deps, async ({ trx }) => {
          if (await finishMessage(trx, message.id, this.workerId, { status: 'skipped' }))
            await settleSkippedPerson(trx, message.user_id, deps.clock.now().toISOString());
        });
        return;
      }
      try {
        await this.deliver(message, context);
      } catch (err) {
        await this.failed(message, context, asFailure(err));
        return;
      }
      await withTransaction(deps, async (tx) => {
        const at = tx.clock.now();
        if (!(await finishMessage(tx.trx, message.id, this.workerId, { status: 'sent', sent_at: at.toISOString() }))) return;
        await setPersonMailStatus(tx.trx, message.user_id, 'sent', null, at.toISOString());
        await recordEvent(tx, {
          accountId: message.account_id,
          type: 'invitation.sent',
          data: { ...eventSubject(message, context), sent_at: at.toISOString() },
          at,
        });
      });
    } catch (err) {
      // The outcome could not be written: the lease runs out and the message is tried again.
      deps.logger.error({ err, mailId: message.id }, 'recording a mail outcome failed');
    }
  }

  /** Unsubscribed, archived, deprovisioned (SCIM), or (for a reminder or re-record request) recorded since it was queued. */
  private noLongerWanted(message: MailRow, context: MessageContext): boolean {
    if (context.unsubscribed_at !== null || context.collection_archived_at !== null) return true;
    if ((context.provisioning_suspended_at ?? null) !== null) return true;
    if (message.kind === 'reminder') return !STILL_TO_RECORD.includes(context.recording_status);
    if (message.kind === 'rerecord') return context.recording_status !== 'needs_rerecord';
    return false;
  }

  /** Hands the message to its channel; a channel that is gone or cannot reach the person is a permanent failure. */
  private async deliver(message: MailRow, context: MessageContext): Promise<void> {
    const { channels } = this.deps;
    if (!channels.has(message.channel)) throw new MessageFailure(false, `No message channel "${message.channel}" is configured.`);
    const channel = channels.get(message.channel);
    const address = channel.addressOf(context);
    if (address === null) throw new MessageFailure(false, `This person has no address on the ${channel.name} channel.`);
    await channel.send(address, this.compose(message, context));
  }

  private compose(message: MailRow, context: MessageContext): ChannelMessage {
    const { baseUrl } = this.deps.config;
    return {
      kind: message.kind,
      locale: mailLocale(context.language, context.collection_language),
      data: personMessageData(baseUrl, message.kind, context, context, {
        recordUrl: recordUrl(baseUrl, context.record_token),
        unsubscribeUrl: unsubscribeUrl(baseUrl, message.unsubscribe_token),
        note: message.note,
      }),
    };
  }

  private async failed(message: MailRow, context: MessageContext, failure: MessageFailure): Promise<void> {
    const { deps } = this;
    const { reason } = failure;
    const now = deps.clock.now();
    if (failure.temporary && message.attempts < MAIL_MAX_ATTEMPTS) {
      deps.logger.warn({ mailId: message.id, attempt: message.attempts, reason }, 'message failed; will retry');
      const delay = RETRY_DELAYS_MS[Math.min(message.attempts, RETRY_DELAYS_MS.length) - 1] as number;
      await retryMessageLater(deps.db.kysely, message.id, this.workerId, new Date(now.getTime() + delay).toISOString(), reason);
      return;
    }
    deps.logger.warn({ mailId: message.id, attempt: message.attempts, reason }, 'message failed for good');
    await withTransaction(deps, async (tx) => {
      if (!(await finishMessage(tx.trx, message.id, this.workerId, { status: 'failed', last_error: reason }))) return;
      await setPersonMailStatus(tx.trx, message.user_id, 'failed', reason, now.toISOString());
      await recordEvent(tx, {
        accountId: message.account_id,
        type: 'invitation.failed',
        data: { ...eventSubject(message, context), error: reason, failed_at: now.toISOString() },
        at: now,
      });
    });
  }
}

const eventSubject = (message: MailRow, context: MessageContext) => ({
  collection_id: message.collection_id,
  user_id: message.user_id,
  email: context.email,
  kind: message.kind,
  mail_id: message.id,
});
