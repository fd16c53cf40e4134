import type { Kysely } from 'kysely';

/**
 * People whose names do not fit first + last: the name they go by and their pronouns, both
 * optional. (`last_name` stays NOT NULL: a person without one has `''`, so every reader of the
 * column, the `recording.completed` payload included, keeps getting a string.)
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('preferred_name', 'text').execute();
  await db.schema.alterTable('users').addColumn('pronouns', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('pronouns').execute();
  await db.schema.alterTable('users').dropColumn('preferred_name').execute();
}
