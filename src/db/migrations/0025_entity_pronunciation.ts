import type { Kysely } from 'kysely';

/**
 * An agent profile's pronunciation guide, made from its name when it is published: IPA, the
 * English-reader respelling, the language it was made in (the request's `name_language`, else one
 * suggested by the name's script, else English) and whether that language was a suggestion.
 * Profiles published before this have none (null), as has a name with nothing to say (digits only).
 */
export async function up(db: Kysely<any>): Promise<void> {
  for (const column of ['guide_ipa', 'guide_respelling', 'guide_language']) {
    await db.schema.alterTable('entities').addColumn(column, 'text').execute();
  }
  await db.schema
    .alterTable('entities')
    .addColumn('guide_language_suggested', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['guide_language_suggested', 'guide_language', 'guide_respelling', 'guide_ipa']) {
    await db.schema.alterTable('entities').dropColumn(column).execute();
  }
}
