import type { Kysely } from 'kysely';

/**
 * LTI 1.3 tool (issue 29).
 *
 * `lti_registrations`: a learning platform registered by an organisation: its issuer, the client
 * id it gave the tool, its deployment ids (JSON array), and its OIDC auth, token and key-set URLs.
 * One (issuer, client id) belongs to one organisation, so a launch names its organisation.
 *
 * `lti_tool_keys`: the tool's own RS256 keys (one key set for the whole service, at `/lti/jwks`).
 * The private key is sealed (AES-256-GCM, key derived from the entity signing key). A key is
 * published from `created_at`, signs from `signs_from`, and is published until `retires_at`.
 *
 * `lti_launch_nonces`: one row per login initiation: the nonce sent to the platform, the hash of
 * the state bound to the browser, the login's query (to start again in a new window when a
 * framed browser withheld the cookie), and `used_at` once a launch consumed it (single use, every process).
 *
 * `lti_contexts`: a course (LTI context) of a registration and the collection made for it, with
 * the course's NRPS memberships URL when the platform offers one, and the `differences` URL the
 * platform gave with the last roster read (changes since then), with when the last full read was.
 *
 * `lti_roster`: the people of a course's collection that came from the platform, by LTI user id;
 * `departed_at` is set when a roster sync no longer finds them in the course.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lti_registrations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('deployment_ids', 'text', (c) => c.notNull())
    .addColumn('auth_url', 'text', (c) => c.notNull())
    .addColumn('token_url', 'text', (c) => c.notNull())
    .addColumn('jwks_url', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lti_registrations_issuer_client')
    .on('lti_registrations')
    .columns(['issuer', 'client_id'])
    .unique()
    .execute();
  await db.schema.createIndex('lti_registrations_account').on('lti_registrations').column('account_id').execute();

  await db.schema
    .createTable('lti_tool_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('signs_from', 'text', (c) => c.notNull())
    .addColumn('retires_at', 'text')
    .execute();

  await db.schema
    .createTable('lti_launch_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('state_hash', 'text', (c) => c.notNull())
    .addColumn('login_query', 'text', (c) => c.notNull())
    .addColumn('registration_id', 'text', (c) => c.notNull().references('lti_registrations.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('lti_launch_nonces_expires').on('lti_launch_nonces').column('expires_at').execute();

  await db.schema
    .createTable('lti_contexts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('registration_id', 'text', (c) => c.notNull().references('lti_registrations.id').onDelete('cascade'))
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('memberships_url', 'text')
    .addColumn('deployment_id', 'text', (c) => c.notNull())
    .addColumn('differences_url', 'text')
    .addColumn('synced_at', 'text')
    .addColumn('full_synced_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lti_contexts_registration_context')
    .on('lti_contexts')
    .columns(['registration_id', 'context_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('lti_roster')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('context_row_id', 'text', (c) => c.notNull().references('lti_contexts.id').onDelete('cascade'))
    .addColumn('lti_user_id', 'text', (c) => c.notNull())
    .addColumn('departed_at', 'text')
    .addColumn('synced_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('lti_roster_context_user')
    .on('lti_roster')
    .columns(['context_row_id', 'lti_user_id'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lti_roster').execute();
  await db.schema.dropTable('lti_contexts').execute();
  await db.schema.dropTable('lti_launch_nonces').execute();
  await db.schema.dropTable('lti_tool_keys').execute();
  await db.schema.dropTable('lti_registrations').execute();
}
