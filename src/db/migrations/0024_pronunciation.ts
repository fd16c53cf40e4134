import type { Kysely } from 'kysely';

/**
 * Pronunciation guides (issue: every name said right, even without a recording).
 *
 * `users` gains the name's language (BCP 47), optionally one for the given name and one for the
 * family name: standard fields like the others (CSV columns, provenance in `field_sources`).
 *
 * `pronunciations` holds one guide per person: IPA and its respelling, an optional "not like
 * this", who last wrote the guide (`generated` by the engine, or the `organiser`, or the
 * `person`), what it was generated from (so a changed name or language regenerates it, unless
 * somebody wrote it), and the person's approval of the computer voice speaking it, with that
 * audio's blob and its public capability token.
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['name_language', 'given_name_language', 'family_name_language']) {
    await db.schema.alterTable('users').addColumn(column, 'text').execute();
  }
  await db.schema
    .createTable('pronunciations')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('ipa', 'text', (col) => col.notNull())
    .addColumn('respelling', 'text', (col) => col.notNull())
    .addColumn('not_like', 'text')
    .addColumn('language', 'text', (col) => col.notNull())
    .addColumn('language_suggested', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('source', 'text', (col) => col.notNull())
    .addColumn('method', 'text', (col) => col.notNull())
    .addColumn('generated_from', 'text', (col) => col.notNull())
    .addColumn('approved_at', 'text')
    .addColumn('audio_token', 'text', (col) => col.unique())
    .addColumn('audio_key', 'text')
    .addColumn('audio_duration_ms', 'integer')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pronunciations').execute();
  for (const column of ['family_name_language', 'given_name_language', 'name_language']) {
    await db.schema.alterTable('users').dropColumn(column).execute();
  }
}
