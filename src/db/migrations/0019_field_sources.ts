import type { Kysely } from 'kysely';

/**
 * Who last wrote each of a person's fields, and when: a JSON object keyed by field name
 * (`first_name`, …, `custom_fields.<key>`) of `{"source": "organiser"|"person"|"integration",
 * "at": "<ISO 8601>"}`. Bulk writes (imports) read it so that what a person corrected
 * themselves is never silently replaced. People stored before it have `{}`: every value was
 * the organiser's.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('field_sources', 'text', (col) => col.notNull().defaultTo('{}'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('field_sources').execute();
}
