/** Queries of the mail outbox (`mail_messages`) and the mail columns of `users`. */
import { type Insertable, type Kysely, sql } from 'kysely';
import type { Dialect } from '../../db/index.js';
import { claimWithLease } from '../../db/lease-claim.js';
import type { Database, MailMessagesTable, MailStatus, RecordingStatus } from '../../db/schema.js';

export type MailRow = MailMessagesTable & { attempts: number };

/** Who still has to record: reminders and the `not_recorded` invitation filter go to them. */
export const STILL_TO_RECORD: RecordingStatus[] = ['none', 'needs_rerecord'];

/** Inserts messages; rows whose `dedupe_key` exists already are dropped. Answers the inserted rows' user ids. */
export async function insertMessages(trx: Kysely<Database>, rows: Insertable<MailMessagesTable>[]): Promise<string[]> {
  const inserted: string[] = [];
  for (let i = 0; i < rows.length; i += 200) {
    const result = await trx
      .insertInto('mail_messages')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.column('dedupe_key').doNothing())
      .returning('user_id')
      .execute();
    inserted.push(...result.map((row) => row.user_id));
  }
  return inserted;
}

/** Sets the latest mail status of people (and, for invitations, when they were invited). */
export async function markPeopleQueued(trx: Kysely<Database>, userIds: string[], at: string, invitation: boolean) {
  for (let i = 0; i < userIds.length; i += 500) {
    await trx
      .updateTable('users')
      .set({ mail_status: 'queued', mail_error: null, mail_updated_at: at, ...(invitation ? { invited_at: at } : {}) })
      .where('id', 'in', userIds.slice(i, i + 500))
      .execute();
  }
}

export const setPersonMailStatus = (
  trx: Kysely<Database>,
  userId: string,
  status: MailStatus,
  error: string | null,
  at: string,
) =>
  trx
    .updateTable('users')
    .set({ mail_status: status, mail_error: error, mail_updated_at: at })
    .where('id', '=', userId)
    .execute();

/** After a skipped message: the person's status goes back to `sent` when they were ever mailed, else to none. */
export async function settleSkippedPerson(trx: Kysely<Database>, userId: string, at: string) {
  const sent = await trx
    .selectFrom('mail_messages')
    .select('id')
    .where('user_id', '=', userId)
    .where('status', '=', 'sent')
    .limit(1)
    .executeTakeFirst();
  await trx
    .updateTable('users')
    .set({ mail_status: sent ? 'sent' : null, mail_error: null, mail_updated_at: at })
    .where('id', '=', userId)
    .where('mail_status', '=', 'queued')
    .execute();
}

/** Mail sent in the last minute or being sent now, over every worker: what the throttle counts. */
export async function mailInLastMinute(db: Kysely<Database>, now: Date): Promise<number> {
  const since = new Date(now.getTime() - 60_000).toISOString();
  const row = await db
    .selectFrom('mail_messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where((eb) =>
      eb.or([eb('sent_at', '>', since), eb.and([eb('status', '=', 'queued'), eb('locked_until', '>=', now.toISOString())])]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Claims due queued messages, shared fairly between accounts (one collection's thousand
 * invitations do not hold back another organisation's three), each claim counting an attempt.
 */
export const claimDueMessages = (
  db: Kysely<Database>,
  dialect: Dialect,
  input: { workerId: string; now: Date; leaseUntil: Date; limit: number },
) =>
  claimWithLease<MailRow>(db, dialect, {
    table: 'mail_messages',
    alias: 'm',
    due: sql`m.status = 'queued' and m.next_attempt_at <= ${input.now.toISOString()}`,
    orderBy: sql`m.next_attempt_at, m.id`,
    alsoSet: sql`attempts = attempts + 1`,
    workerId: input.workerId,
    now: input.now.toISOString(),
    leaseUntil: input.leaseUntil.toISOString(),
    limit: input.limit,
    fair: {
      keyColumn: 'collection_id',
      owner: sql`m.account_id`,
      maxPerKey: input.limit,
      inFlightScope: sql`m.status = 'queued'`,
    },
  });

/** Ends a claimed message (sent, failed or skipped); false when this worker no longer holds it. */
export async function finishMessage(
  trx: Kysely<Database>,
  id: string,
  workerId: string,
  changes: { status: MailMessagesTable['status']; sent_at?: string; last_error?: string | null },
): Promise<boolean> {
  const result = await trx
    .updateTable('mail_messages')
    .set({ ...changes, locked_by: null, locked_until: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const retryMessageLater = (db: Kysely<Database>, id: string, workerId: string, at: string, error: string) =>
  db
    .updateTable('mail_messages')
    .set({ next_attempt_at: at, last_error: error, locked_by: null, locked_until: null })
    .where('id', '=', id)
    .where('locked_by', '=', workerId)
    .execute();

/** The person and collection a message is for, as the sender needs them. */
export const findMessageContext = (db: Kysely<Database>, userId: string) =>
  db
    .selectFrom('users')
    .innerJoin('collections', 'collections.id', 'users.collection_id')
    .selectAll('users')
    .select([
      'collections.name as collection_name',
      'collections.archived_at as collection_archived_at',
      'collections.deadline',
      // Not `language`: the person's own (`users.language`) comes first.
      'collections.language as collection_language',
      'collections.organisation_name',
      'collections.privacy_note',
      'collections.logo_key',
      'collections.brand_color',
      'collections.sender_name',
      'collections.reply_to',
      'collections.invitation_message',
      'collections.reminder_message',
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();

export type MessageContext = NonNullable<Awaited<ReturnType<typeof findMessageContext>>>;

export const findMessageByToken = (db: Kysely<Database>, token: string) =>
  db
    .selectFrom('mail_messages')
    .innerJoin('users', 'users.id', 'mail_messages.user_id')
    .innerJoin('collections', 'collections.id', 'mail_messages.collection_id')
    .select([
      'mail_messages.user_id',
      'users.email',
      'users.unsubscribed_at',
      'collections.name as collection_name',
      'users.language as person_language',
      'collections.language as collection_language',
    ])
    .where('mail_messages.unsubscribe_token', '=', token)
    .executeTakeFirst();

export const unsubscribePerson = (db: Kysely<Database>, userId: string, at: string) =>
  db.updateTable('users').set({ unsubscribed_at: at }).where('id', '=', userId).where('unsubscribed_at', 'is', null).execute();

/** Live collections with a deadline not yet passed and reminder days set. */
export const collectionsWithReminders = (db: Kysely<Database>, today: string) =>
  db
    .selectFrom('collections')
    .select(['id', 'account_id', 'deadline', 'reminder_days'])
    .where('archived_at', 'is', null)
    .where('deadline', '>=', today)
    .where('reminder_days', '!=', '[]')
    .execute();

/** People who left the LMS course their collection follows (a roster sync marked them departed): never mailed. */
const notDeparted = sql<boolean>`not exists (select 1 from lti_roster where lti_roster.user_id = users.id and lti_roster.departed_at is not null)`;

/** Addresses a roster sync made for members the platform shared none for (`.invalid`: no mail reaches them). */
const ROSTER_PLACEHOLDER_EMAILS = '%@roster.invalid';

/** People of a collection a reminder is for: still to record, invited before `invitedBefore`, subscribed, still in their course. */
export const peopleToRemind = (db: Kysely<Database>, collectionId: string, invitedBefore: string) =>
  db
    .selectFrom('users')
    .select('id')
    .where('collection_id', '=', collectionId)
    .where(notDeparted)
    .where('email_normalized', 'not like', ROSTER_PLACEHOLDER_EMAILS)
    .where('recording_status', 'in', STILL_TO_RECORD)
    .where('unsubscribed_at', 'is', null)
    .where('invited_at', 'is not', null)
    .where('invited_at', '<', invitedBefore)
    .execute();

/** Who an invitation goes to: these people, everyone `STILL_TO_RECORD`, or people without a recording by their guide. */
export type InviteSelection = { userIds: string[] } | { stillToRecord: true } | { coverage: readonly ('guide' | 'none')[] };

/**
 * People of a collection an invitation may go to. By coverage: no recording (`none`), and a guide
 * nobody approved (`guide`), no guide at all (`none`), or either: everyone whose name has neither
 * their voice nor a computer voice they approved. Each guide is looked up by its key. People who
 * left their LMS course, and course members without an address, are never among them.
 */
export function peopleToInvite(db: Kysely<Database>, collectionId: string, selection: InviteSelection) {
  let query = db
    .selectFrom('users')
    .select(['id', 'invited_at', 'unsubscribed_at', 'mail_status', 'language'])
    .where('collection_id', '=', collectionId)
    .where(notDeparted)
    .where('email_normalized', 'not like', ROSTER_PLACEHOLDER_EMAILS);
  if ('userIds' in selection) return query.where('id', 'in', selection.userIds).execute();
  if ('stillToRecord' in selection) return query.where('recording_status', 'in', STILL_TO_RECORD).execute();
  query = query.where('recording_status', '=', 'none');
  const guide = selection.coverage.includes('guide');
  const none = selection.coverage.includes('none');
  const guides = (approved: 'is' | 'is not' | null) =>
    sql<boolean>`exists (select 1 from pronunciations where pronunciations.user_id = users.id${
      approved === null ? sql`` : sql` and pronunciations.approved_at ${sql.raw(approved)} null`
    })`;
  if (guide && none) query = query.where(sql<boolean>`not ${guides('is not')}`);
  else if (guide) query = query.where(guides('is'));
  else query = query.where(sql<boolean>`not ${guides(null)}`);
  return query.execute();
}

/**
 * The first person (in import order) whose mail is in `locale`: their own language, or none set
 * when the collection's is `locale` (`collectionReads`). What the preview greets.
 */
export const samplePersonIn = (db: Kysely<Database>, collectionId: string, locale: string, collectionReads: boolean) =>
  db
    .selectFrom('users')
    .select(['first_name', 'display_name'])
    .where('collection_id', '=', collectionId)
    .where((eb) =>
      collectionReads ? eb.or([eb('language', '=', locale), eb('language', 'is', null)]) : eb('language', '=', locale),
    )
    .orderBy('created_at')
    .orderBy('import_position')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
