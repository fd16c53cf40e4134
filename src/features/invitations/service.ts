/**
 * Messages to the people of a collection: invitations (asked for through the API or the
 * dashboard), reminders before the deadline (scheduled by a periodic task) and re-record requests
 * (queued with the organiser's review). Each message is a row of the outbox (`mail_messages`),
 * inserted in the transaction of the change that asks for it, with the message channel it goes
 * through (`channelFor`, e-mail for everyone today); the sender (`sender.ts`) sends them, throttled.
 */
import type { Insertable } from 'kysely';
import type { MailKind, MailMessagesTable } from '../../db/schema.js';
import type { Locale } from '../../i18n/index.js';
import { type TransactionDeps, type TransactionScope, withTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import type { ChannelChoice } from '../../integrations/channels/registry.js';
import { newId, randomToken } from '../../lib/ids.js';
import { requireLiveCollection } from '../collections/service.js';
import {
  collectionsWithReminders,
  findMessageByToken,
  insertMessages,
  markPeopleQueued,
  peopleToInvite,
  peopleToRemind,
  unsubscribePerson,
} from './repo.js';
import type { InvitationsBody, InvitationsResult } from './schemas.js';
import { mailLocale } from './mail-content.js';

type InviteDb = Parameters<typeof peopleToInvite>[0];

/** `channelFor`: which message channel a person's message goes through (the registry's choice). */
export type InvitationsDeps = TransactionDeps & { channels: { channelFor: ChannelChoice } };

/** Invitations sent within this window are skipped unless `resend` is set. */
const RECENT_INVITATION_MS = 24 * 60 * 60_000;

export const unsubscribeUrl = (baseUrl: string, token: string) => `${baseUrl}/u/${token}`;

function messageRow(
  input: { accountId: string; collectionId: string; userId: string; kind: MailKind; channel: string; at: string },
  extra: { dedupe_key?: string; note?: string | null } = {},
): Insertable<MailMessagesTable> {
  return {
    id: newId(),
    account_id: input.accountId,
    collection_id: input.collectionId,
    user_id: input.userId,
    kind: input.kind,
    channel: input.channel,
    status: 'queued',
    dedupe_key: extra.dedupe_key ?? null,
    unsubscribe_token: randomToken(24),
    note: extra.note ?? null,
    next_attempt_at: input.at,
    locked_by: null,
    locked_until: null,
    last_error: null,
    created_at: input.at,
    sent_at: null,
  };
}

/**
 * Who a batch goes to, and with which text: the chosen people (by id, everyone still to record,
 * or the people without a recording whose pronunciation is only a guide or nothing) minus the
 * unsubscribed and, unless `resend`, those invited in the last 24 hours. A person invited
 * before whose last mail did not fail gets the reminder text, not the invitation word for word.
 * Unknown ids are a 400 naming the first.
 */
async function planBatch(trx: InviteDb, collection: { id: string; language: string }, body: InvitationsBody, now: Date) {
  const recentSince = new Date(now.getTime() - RECENT_INVITATION_MS).toISOString();
  const people = await peopleToInvite(
    trx,
    collection.id,
    body.user_ids ? { userIds: body.user_ids } : body.coverage ? { coverage: body.coverage } : { stillToRecord: true },
  );
  if (body.user_ids) {
    const found = new Set(people.map((person) => person.id));
    const missing = body.user_ids.findIndex((id) => !found.has(id));
    if (missing >= 0) {
      throw new AppError('resource_missing', `No user ${body.user_ids[missing]} in this collection.`, {
        param: `user_ids[${missing}]`,
      });
    }
  }
  const unsubscribed = people.filter((person) => person.unsubscribed_at !== null);
  const recent = people.filter(
    (person) => person.unsubscribed_at === null && !body.resend && person.invited_at !== null && person.invited_at > recentSince,
  );
  const skipped = new Set([...unsubscribed, ...recent].map((person) => person.id));
  const chosen = people.filter((person) => !skipped.has(person.id));
  const remind = (person: (typeof people)[number]) => person.invited_at !== null && person.mail_status !== 'failed';
  const byLanguage: Partial<Record<Locale, number>> = {};
  for (const person of chosen) {
    const locale = mailLocale(person.language, collection.language);
    byLanguage[locale] = (byLanguage[locale] ?? 0) + 1;
  }
  return {
    invitations: chosen.filter((person) => !remind(person)).map((person) => person.id),
    reminders: chosen.filter(remind).map((person) => person.id),
    result: {
      object: 'invitation_batch' as const,
      collection_id: collection.id,
      dry_run: body.dry_run === true,
      queued: chosen.length,
      reminders: chosen.filter(remind).length,
      by_language: byLanguage,
      skipped: { recently_invited: recent.length, unsubscribed: unsubscribed.length },
    },
  };
}

/**
 * Queues one message per person of the batch (see `planBatch`: the invitation, or the reminder
 * text for people invited before) and answers how many were queued and skipped, and in which
 * languages. With `dry_run`, answers the same counts and queues nothing: the confirmation
 * before sending.
 */
export async function queueInvitations(
  deps: InvitationsDeps,
  accountId: string,
  collectionId: string,
  body: InvitationsBody,
): Promise<InvitationsResult> {
  const selectors = (['user_ids', 'filter', 'coverage'] as const).filter((name) => body[name] !== undefined);
  if (selectors.length !== 1) {
    throw new AppError(
      'parameter_invalid',
      'Give one of "user_ids", "filter": "not_recorded" or "coverage": ["guide", "none"], not several and not none.',
      { param: selectors[1] ?? 'user_ids' },
    );
  }
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const now = deps.clock.now();
  if (body.dry_run) return (await planBatch(deps.db.kysely, collection, body, now)).result;
  const at = now.toISOString();
  return withTransaction(deps, async (tx) => {
    const plan = await planBatch(tx.trx, collection, body, now);
    const batch = { accountId, collectionId: collection.id, at, markInvited: true };
    await queueMessages(tx, deps.channels.channelFor, { ...batch, kind: 'invitation' }, plan.invitations);
    await queueMessages(tx, deps.channels.channelFor, { ...batch, kind: 'reminder' }, plan.reminders);
    return plan.result;
  });
}

/** Inserts one message of `kind` per person, on the channel chosen for them, and marks them queued; answers who got one. */
async function queueMessages(
  tx: TransactionScope,
  channelFor: ChannelChoice,
  input: {
    accountId: string;
    collectionId: string;
    kind: MailKind;
    at: string;
    note?: string | null;
    dedupeKey?: (userId: string) => string;
    /** Sets `invited_at`: an invitation batch (its reminders too, so the 24-hour rule covers them). */
    markInvited?: boolean;
  },
  userIds: string[],
): Promise<string[]> {
  if (userIds.length === 0) return [];
  const rows = userIds.map((userId) =>
    messageRow(
      { ...input, userId, channel: channelFor({ collectionId: input.collectionId, userId }) },
      { note: input.note ?? null, ...(input.dedupeKey ? { dedupe_key: input.dedupeKey(userId) } : {}) },
    ),
  );
  const queued = await insertMessages(tx.trx, rows);
  await markPeopleQueued(tx.trx, queued, input.at, input.markInvited === true);
  if (queued.length > 0) tx.wakeWorkerAfterCommit();
  return queued;
}

/**
 * Queues the mail telling a person their recording should be made again, with the organiser's
 * note; called in the review's transaction. Unsubscribed people get none.
 */
export async function queueRerecordMail(
  tx: TransactionScope,
  channelFor: ChannelChoice,
  person: { accountId: string; collectionId: string; userId: string; unsubscribed: boolean; note: string },
): Promise<void> {
  if (person.unsubscribed) return;
  await queueMessages(
    tx,
    channelFor,
    {
      accountId: person.accountId,
      collectionId: person.collectionId,
      kind: 'rerecord',
      at: tx.clock.now().toISOString(),
      note: person.note,
    },
    [person.userId],
  );
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const addDays = (day: string, days: number) => dayOf(new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000));

/**
 * The reminder day a collection is due for today: the latest of its reminder days (counted back
 * from the deadline) that is not after today, or null. A worker that was down on a reminder day
 * sends it late, but only the latest one.
 */
export function dueReminderDay(deadline: string, reminderDays: number[], today: string): string | null {
  if (deadline < today) return null;
  const due = reminderDays.map((days) => addDays(deadline, -days)).filter((day) => day <= today);
  return due.length === 0 ? null : (due.sort().at(-1) as string);
}

/**
 * Queues the reminders due today (UTC) in every collection: to people invited before the
 * reminder day who still have to record and did not unsubscribe. A reminder's dedupe key (the
 * person and the reminder day) is unique, so every worker may run this at once and each person
 * gets one reminder per reminder day. Answers how many were queued.
 */
export async function queueDueReminders(deps: InvitationsDeps): Promise<number> {
  const today = dayOf(deps.clock.now());
  let queued = 0;
  for (const collection of await collectionsWithReminders(deps.db.kysely, today)) {
    const day = dueReminderDay(collection.deadline as string, JSON.parse(collection.reminder_days) as number[], today);
    if (day === null) continue;
    const people = await peopleToRemind(deps.db.kysely, collection.id, `${day}T00:00:00.000Z`);
    if (people.length === 0) continue;
    queued += await withTransaction(deps, async (tx) => {
      const sent = await queueMessages(
        tx,
        deps.channels.channelFor,
        {
          accountId: collection.account_id,
          collectionId: collection.id,
          kind: 'reminder',
          at: tx.clock.now().toISOString(),
          dedupeKey: (userId) => `reminder:${userId}:${day}`,
        },
        people.map((person) => person.id),
      );
      return sent.length;
    });
  }
  return queued;
}

export interface UnsubscribeView {
  collection: string;
  email: string;
  /** The person's own language (null: none set) and the collection's: the page's language follows `personLocale`. */
  personLanguage: string | null;
  collectionLanguage: string;
  unsubscribed: boolean;
}

const findByToken = (deps: InvitationsDeps, token: string) =>
  /^[A-Za-z0-9_-]{32}$/.test(token) ? findMessageByToken(deps.db.kysely, token) : Promise.resolve(undefined);

const viewOf = (row: NonNullable<Awaited<ReturnType<typeof findMessageByToken>>>, unsubscribed: boolean): UnsubscribeView => ({
  collection: row.collection_name,
  email: row.email,
  personLanguage: row.person_language,
  collectionLanguage: row.collection_language,
  unsubscribed,
});

/** What an unsubscribe link is for, or null when the token is unknown (or its person deleted). */
export async function describeUnsubscribe(deps: InvitationsDeps, token: string): Promise<UnsubscribeView | null> {
  const row = await findByToken(deps, token);
  return row ? viewOf(row, row.unsubscribed_at !== null) : null;
}

/** Unsubscribes the person of the link from their collection's mail; idempotent. */
export async function unsubscribe(deps: InvitationsDeps, token: string): Promise<UnsubscribeView | null> {
  const row = await findByToken(deps, token);
  if (!row) return null;
  await unsubscribePerson(deps.db.kysely, row.user_id, deps.clock.now().toISOString());
  return viewOf(row, true);
}
