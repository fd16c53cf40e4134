import { type Kysely, sql } from 'kysely';

/**
 * OpenID Connect single sign-on per organisation (issue 29).
 *
 * `sso_connections`: one identity provider per organisation. The client secret is stored only
 * encrypted (AES-256-GCM, `client_secret_sealed`); `role_mapping` is JSON text, group → role.
 * `sso_required` (0/1): members other than owners may not sign in with an e-mailed link.
 *
 * `sso_domains`: e-mail domains an organisation claims; a domain routes sign-in only once
 * `verified_at` is set (DNS TXT record or well-known file holding `token`). One organisation per
 * verified domain (partial unique index).
 *
 * `sso_sign_in_states`: one row per sign-in sent to an identity provider (10 minutes, single use),
 * keyed by the hash of `state`, bound to the browser by the hash of its sign-in cookie; the client's
 * address (hashed, as sign-in links keep it) counts its attempts for the rate limit.
 *
 * `dashboard_sessions.sso_account_id`: the organisation whose identity provider opened the session
 * (null for e-mailed links), so an organisation that requires SSO can refuse other sessions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sso_connections')
    .addColumn('account_id', 'text', (col) => col.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (col) => col.notNull())
    .addColumn('client_id', 'text', (col) => col.notNull())
    .addColumn('client_secret_sealed', 'text', (col) => col.notNull())
    .addColumn('group_claim', 'text', (col) => col.notNull())
    .addColumn('role_mapping', 'text', (col) => col.notNull())
    .addColumn('default_role', 'text', (col) => col.notNull())
    .addColumn('sso_required', 'integer', (col) => col.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('updated_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('sso_domains')
    .addColumn('id', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('domain', 'text', (col) => col.notNull())
    .addColumn('token', 'text', (col) => col.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('sso_domains_account_domain')
    .on('sso_domains')
    .columns(['account_id', 'domain'])
    .unique()
    .execute();
  await db.schema
    .createIndex('sso_domains_verified_domain')
    .on('sso_domains')
    .column('domain')
    .unique()
    .where(sql.ref('verified_at'), 'is not', null)
    .execute();
  await db.schema
    .createTable('sso_sign_in_states')
    .addColumn('state_hash', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('browser_hash', 'text', (col) => col.notNull())
    .addColumn('ip_hash', 'text', (col) => col.notNull())
    .addColumn('nonce', 'text', (col) => col.notNull())
    .addColumn('code_verifier', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('sso_sign_in_states_ip').on('sso_sign_in_states').columns(['ip_hash', 'created_at']).execute();
  await db.schema.alterTable('dashboard_sessions').addColumn('sso_account_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('dashboard_sessions').dropColumn('sso_account_id').execute();
  await db.schema.dropTable('sso_sign_in_states').execute();
  await db.schema.dropTable('sso_domains').execute();
  await db.schema.dropTable('sso_connections').execute();
}
