import type { Kysely } from 'kysely';

/**
 * The `Location` of a stored answer: a retry of a POST that created something (201) gets the same
 * answer, headers included, as the first attempt.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').addColumn('response_location', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('idempotency_keys').dropColumn('response_location').execute();
}
