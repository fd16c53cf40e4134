import type { Kysely } from 'kysely';

/**
 * Mail to the people of a collection (invitations, reminders, re-record requests) as an outbox of
 * its own: one row per message, claimed with a lease by the mail sender, throttled and retried.
 * A reminder's `dedupe_key` (person + scheduled day) is unique, so two workers scheduling the
 * same reminder insert it once. Each message carries its own unsubscribe token.
 * The person's latest mail status and their unsubscription live on `users`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mail_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    // `invitation`, `reminder` or `rerecord`.
    .addColumn('kind', 'text', (c) => c.notNull())
    // `queued`, `sent`, `failed`, or `skipped` (the person unsubscribed or recorded before it left).
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.unique())
    // The capability in the mail's one-click unsubscribe link (like the record token, a random secret).
    .addColumn('unsubscribe_token', 'text', (c) => c.notNull().unique())
    // The organiser's note of a re-record request, as it was when asked.
    .addColumn('note', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_by', 'text')
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .execute();
  await db.schema.createIndex('mail_messages_due').on('mail_messages').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('mail_messages_sent').on('mail_messages').column('sent_at').execute();
  await db.schema.createIndex('mail_messages_user').on('mail_messages').column('user_id').execute();
  for (const [column, type] of [
    // The person's latest mail: `queued`, `sent` or `failed`; null before any.
    ['mail_status', 'text'],
    ['mail_error', 'text'],
    ['mail_updated_at', 'text'],
    // When the last invitation was queued: invitations within 24 h are skipped unless resent.
    ['invited_at', 'text'],
    ['unsubscribed_at', 'text'],
  ] as const) {
    await db.schema.alterTable('users').addColumn(column, type).execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['unsubscribed_at', 'invited_at', 'mail_updated_at', 'mail_error', 'mail_status']) {
    await db.schema.alterTable('users').dropColumn(column).execute();
  }
  await db.schema.dropTable('mail_messages').execute();
}
