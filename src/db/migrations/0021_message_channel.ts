import type { Kysely } from 'kysely';

/**
 * The channel each queued message goes through (src/integrations/channels): chosen when the
 * message is queued and kept for its retries. Every message so far was e-mail.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('mail_messages')
    .addColumn('channel', 'text', (col) => col.notNull().defaultTo('email'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('mail_messages').dropColumn('channel').execute();
}
