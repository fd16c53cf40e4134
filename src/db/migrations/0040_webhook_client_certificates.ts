import type { Kysely } from 'kysely';

/**
 * Mutual TLS per webhook (issue 31): the client certificate (PEM, public, kept in clear) and its
 * private key sealed with the secret box (AES-256-GCM, SSO_ENCRYPTION_KEY), so a copy of the
 * database alone does not hold the key. Both null: no client certificate, as before.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('tls_client_certificate', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('tls_client_key_sealed', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('tls_client_key_sealed').execute();
  await db.schema.alterTable('webhooks').dropColumn('tls_client_certificate').execute();
}
