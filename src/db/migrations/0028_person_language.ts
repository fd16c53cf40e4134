import type { Kysely } from 'kysely';

/**
 * Invitations with care (issue 28).
 *
 * `users.language`: the language a person reads their mail and record page in (a locale of
 * src/i18n), a standard field like the others (API, CSV column, provenance); null: the
 * collection's language (and, on pages, the browser's).
 *
 * `collections.reminder_message`: the organiser's reminder text, as `invitation_message` is the
 * invitation's; null: the language's standard reminder.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('language', 'text').execute();
  await db.schema.alterTable('collections').addColumn('reminder_message', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('collections').dropColumn('reminder_message').execute();
  await db.schema.alterTable('users').dropColumn('language').execute();
}
