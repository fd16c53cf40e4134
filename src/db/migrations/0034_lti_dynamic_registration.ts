import type { Kysely } from 'kysely';

/**
 * LTI Dynamic Registration (issue 29; src/features/lti/dynamic-registration.ts).
 *
 * `lti_registration_links`: the secret an owner or admin mints on the LMS page, carried in the
 * registration URL pasted into the platform. Stored like the other tokens (public prefix, SHA-256
 * of the whole token); it names one organisation, expires at `expires_at`, is used up at
 * `used_at` (in the transaction that stores the registration it made, `registration_id`) and can
 * be revoked before. `created_by` is the member who minted it: the audit log names them for the
 * registration the platform completes without a session.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lti_registration_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('registration_id', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('lti_registration_links_account')
    .on('lti_registration_links')
    .columns(['account_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lti_registration_links').execute();
}
