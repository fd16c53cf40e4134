import type { Kysely } from 'kysely';

/**
 * What an organiser sets so the people of a collection trust and act on their invitation: a
 * deadline, the language of the pages and mail, whether people may correct their own names,
 * the organisation's branding (name, logo, intro, privacy note) and the invitation mail
 * (sender name, reply-to, message template, reminder days before the deadline).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const add = (column: string, build: (table: ReturnType<Kysely<any>['schema']['alterTable']>) => { execute(): Promise<void> }) =>
    build(db.schema.alterTable('collections')).execute();
  // `YYYY-MM-DD`, the last day people can record.
  await add('deadline', (t) => t.addColumn('deadline', 'text'));
  await add('language', (t) => t.addColumn('language', 'text', (c) => c.notNull().defaultTo('en')));
  await add('self_edit', (t) => t.addColumn('self_edit', 'integer', (c) => c.notNull().defaultTo(1)));
  await add('organisation_name', (t) => t.addColumn('organisation_name', 'text'));
  await add('intro', (t) => t.addColumn('intro', 'text'));
  await add('privacy_note', (t) => t.addColumn('privacy_note', 'text'));
  // Blob key of the re-encoded PNG logo (content-addressed), null without a logo.
  await add('logo_key', (t) => t.addColumn('logo_key', 'text'));
  // JSON array of whole days before the deadline, e.g. [7, 2].
  await add('reminder_days', (t) => t.addColumn('reminder_days', 'text', (c) => c.notNull().defaultTo('[]')));
  await add('sender_name', (t) => t.addColumn('sender_name', 'text'));
  await add('reply_to', (t) => t.addColumn('reply_to', 'text'));
  await add('invitation_message', (t) => t.addColumn('invitation_message', 'text'));
}

const COLUMNS = [
  'invitation_message',
  'reply_to',
  'sender_name',
  'reminder_days',
  'logo_key',
  'privacy_note',
  'intro',
  'organisation_name',
  'self_edit',
  'language',
  'deadline',
];

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('collections').dropColumn(column).execute();
}
