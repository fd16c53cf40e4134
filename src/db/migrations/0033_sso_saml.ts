import type { Kysely } from 'kysely';

/**
 * SAML 2.0 as the second protocol of an organisation's single sign-on connection (issue 29).
 *
 * `sso_connections.protocol`: `oidc` (the rows before this migration) or `saml`. A SAML row keeps
 * the IdP's entity id in `issuer` (the assertion's Issuer), the IdP's SSO URL (HTTP-Redirect) in
 * `saml_sso_url`, its signing certificate (PEM) in `saml_idp_cert`, the attribute carrying the
 * e-mail address in `saml_email_attribute` and the group attribute in `group_claim`;
 * `client_id` and `client_secret_sealed` are empty. `saml_allow_idp_initiated` (0/1, off by
 * default): whether unsolicited responses (IdP-initiated sign-in) are accepted.
 *
 * SP-initiated sign-ins keep their AuthnRequest in `sso_sign_in_states` (`state_hash`: hash of the
 * request ID; `nonce` and `code_verifier` empty), so the rate limit, single use and expiry are
 * those of OpenID Connect.
 *
 * `sso_saml_assertions`: every accepted assertion, keyed by the hash of its IdP and ID, until the
 * assertion expires, so a replayed one is refused in every process.
 *
 * `sso_saml_tickets`: the verified result of a response posted to the ACS, handed to the browser's
 * next same-site request (the cross-site POST carries no SameSite=Lax cookie), single use, minutes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sso_connections')
    .addColumn('protocol', 'text', (col) => col.notNull().defaultTo('oidc'))
    .execute();
  await db.schema.alterTable('sso_connections').addColumn('saml_sso_url', 'text').execute();
  await db.schema.alterTable('sso_connections').addColumn('saml_idp_cert', 'text').execute();
  await db.schema.alterTable('sso_connections').addColumn('saml_email_attribute', 'text').execute();
  await db.schema
    .alterTable('sso_connections')
    .addColumn('saml_allow_idp_initiated', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('sso_saml_assertions')
    .addColumn('assertion_hash', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('used_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema.createIndex('sso_saml_assertions_expires').on('sso_saml_assertions').column('expires_at').execute();
  await db.schema
    .createTable('sso_saml_tickets')
    .addColumn('ticket_hash', 'text', (col) => col.primaryKey())
    .addColumn('account_id', 'text', (col) => col.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (col) => col.notNull())
    .addColumn('role', 'text', (col) => col.notNull())
    .addColumn('browser_hash', 'text')
    .addColumn('created_at', 'text', (col) => col.notNull())
    .addColumn('expires_at', 'text', (col) => col.notNull())
    .addColumn('used_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sso_saml_tickets').execute();
  await db.schema.dropTable('sso_saml_assertions').execute();
  for (const column of ['saml_allow_idp_initiated', 'saml_email_attribute', 'saml_idp_cert', 'saml_sso_url', 'protocol']) {
    await db.schema.alterTable('sso_connections').dropColumn(column).execute();
  }
}
