import type { Kysely } from 'kysely';

/**
 * Whether a sign-in request was answered with a mail. Requests still count toward the
 * requesting client's limits; mails count toward the address's own budget, which is what caps
 * the mail one address receives (existing rows were all mailed).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('dashboard_sign_in_tokens')
    .addColumn('mailed', 'integer', (col) => col.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_sign_in_tokens').dropColumn('mailed').execute();
}
