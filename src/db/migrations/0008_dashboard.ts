import type { Kysely } from 'kysely';

/**
 * Developer dashboard: passwordless sign-in links and server-side sessions (hashes only), and
 * who claimed an agent entity (0007) and when.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('dashboard_sign_in_tokens')
    // SHA-256 of the token in the e-mailed link; the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    // SHA-256 of the browser-binding cookie of the browser that asked for the link (null: none).
    .addColumn('browser_hash', 'text')
    // SHA-256 of the requesting client address (for the per-address rate limit only).
    .addColumn('ip_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('dashboard_sign_in_tokens_email')
    .on('dashboard_sign_in_tokens')
    .columns(['email', 'created_at'])
    .execute();
  await db.schema
    .createIndex('dashboard_sign_in_tokens_ip')
    .on('dashboard_sign_in_tokens')
    .columns(['ip_hash', 'created_at'])
    .execute();

  await db.schema
    .createTable('dashboard_sessions')
    // SHA-256 of the session id in the cookie.
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();

  // Claiming (spec section 3: published, unclaimed and unverified → claimed and verified).
  await db.schema.alterTable('entities').addColumn('claimed_by_account_id', 'text').execute();
  await db.schema.alterTable('entities').addColumn('claimed_at', 'text').execute();
  await db.schema.createIndex('entities_claimed_by').on('entities').columns(['claimed_by_account_id', 'claimed_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entities_claimed_by').execute();
  await db.schema.alterTable('entities').dropColumn('claimed_at').execute();
  await db.schema.alterTable('entities').dropColumn('claimed_by_account_id').execute();
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.dropTable('dashboard_sign_in_tokens').execute();
}
