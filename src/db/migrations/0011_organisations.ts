import { type Kysely, sql } from 'kysely';

/**
 * Organisations. The `accounts` row stays the organisation (keys, collections, webhooks and
 * claimed profiles keep their `account_id`); people join it as members with a role. Every
 * existing account becomes a one-member organisation owned by its e-mail address. Dashboard
 * sessions now belong to a person (their e-mail) and name the organisation they act in (null
 * while a person with several organisations has not picked one). Invitations and the audit log
 * belong to the organisation.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('account_members')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    // owner | admin | viewer
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // E-mail of the member who invited this one; null for the owner an account started with.
    .addColumn('invited_by', 'text')
    .addPrimaryKeyConstraint('account_members_pk', ['account_id', 'email'])
    .execute();
  await db.schema.createIndex('account_members_email').on('account_members').column('email').execute();
  await sql`insert into account_members (account_id, email, role, created_at, invited_by)
    select id, email, 'owner', created_at, null from accounts`.execute(db);

  // SQLite cannot drop NOT NULL from a column: the sessions table is rebuilt, every live session kept.
  await db.schema
    .createTable('dashboard_sessions_next')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .execute();
  await sql`insert into dashboard_sessions_next (id_hash, email, account_id, created_at, expires_at, user_agent)
    select s.id_hash, a.email, s.account_id, s.created_at, s.expires_at, s.user_agent
    from dashboard_sessions s join accounts a on a.id = s.account_id`.execute(db);
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.alterTable('dashboard_sessions_next').renameTo('dashboard_sessions').execute();
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute();
  await db.schema.createIndex('dashboard_sessions_email').on('dashboard_sessions').column('email').execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();

  await db.schema
    .createTable('account_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // SHA-256 of the token in the e-mailed link; the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('account_invitations_account')
    .on('account_invitations')
    .columns(['account_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // member | api_key
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    // The member's e-mail, or the API key's public prefix.
    .addColumn('actor', 'text', (c) => c.notNull())
    // The API key's name (null for members and unnamed keys).
    .addColumn('actor_name', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text')
    .addColumn('ip', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // Keyset pagination: newest first within an organisation.
  await db.schema.createIndex('audit_log_account_page').on('audit_log').columns(['account_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('account_invitations').execute();
  await db.schema
    .createTable('dashboard_sessions_previous')
    .addColumn('id_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text')
    .execute();
  // A session of a member other than the account's own e-mail cannot exist before organisations.
  await sql`insert into dashboard_sessions_previous (id_hash, account_id, created_at, expires_at, user_agent)
    select s.id_hash, s.account_id, s.created_at, s.expires_at, s.user_agent
    from dashboard_sessions s join accounts a on a.id = s.account_id and a.email = s.email`.execute(db);
  await db.schema.dropTable('dashboard_sessions').execute();
  await db.schema.alterTable('dashboard_sessions_previous').renameTo('dashboard_sessions').execute();
  await db.schema.createIndex('dashboard_sessions_account').on('dashboard_sessions').column('account_id').execute();
  await db.schema.createIndex('dashboard_sessions_expires').on('dashboard_sessions').column('expires_at').execute();
  await db.schema.dropTable('account_members').execute();
}
