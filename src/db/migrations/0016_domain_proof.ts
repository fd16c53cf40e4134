import type { Kysely } from 'kysely';

/**
 * Proof that a claimed agent profile's owner controls the domain of its `source_url`: a token
 * the owner publishes at `https://<domain>/.well-known/voicename-verification.txt`, and the
 * domain once the service found it there. Only then does the profile say "Verified: <domain>".
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('entities').addColumn('domain_token', 'text').execute();
  await db.schema.alterTable('entities').addColumn('verified_domain', 'text').execute();
  await db.schema.alterTable('entities').addColumn('domain_verified_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['domain_verified_at', 'verified_domain', 'domain_token']) {
    await db.schema.alterTable('entities').dropColumn(column).execute();
  }
}
