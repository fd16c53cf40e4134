import type { Kysely } from 'kysely';

/**
 * Review at speed. `users.listened_at` / `listened_by`: when and by which member (e-mail) the
 * person's current recording was played in the dashboard; a new recording or its deletion clears
 * both, so "approve what was played" never approves a take nobody heard. `audit_log.detail`: what
 * an entry decided beyond its action and object, as a JSON object (a review's decision and note).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('listened_at', 'text').execute();
  await db.schema.alterTable('users').addColumn('listened_by', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('detail', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').dropColumn('detail').execute();
  await db.schema.alterTable('users').dropColumn('listened_by').execute();
  await db.schema.alterTable('users').dropColumn('listened_at').execute();
}
