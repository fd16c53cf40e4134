import type { Kysely } from 'kysely';

/**
 * SCIM 2.0 provisioning (issue 29; src/features/scim).
 *
 * `scim_tokens`: an organisation's provisioning bearer tokens, stored like API keys (public
 * prefix, SHA-256 of the whole token, last use, revocation).
 *
 * `scim_users`: an organisation-level identity an identity provider manages. `user_name_key`
 * (lower-cased userName) is unique per organisation; `resource` keeps the whole SCIM
 * representation (enterprise extension included) without `id` and `meta`.
 *
 * `scim_groups`: a group is a collection (`collection_id`, unique); `display_name_key` is unique
 * per organisation. `scim_group_members`: which users belong to which group, and the person
 * (`users` row) each membership made in the group's collection.
 *
 * `users.provisioning_suspended_at`: set while the person's SCIM user is inactive; the record
 * link stops working and no message goes to them until it is cleared.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scim_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('prefix', 'text', (c) => c.notNull().unique())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema.createIndex('scim_tokens_account').on('scim_tokens').columns(['account_id', 'created_at']).execute();

  await db.schema
    .createTable('scim_users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('user_name', 'text', (c) => c.notNull())
    .addColumn('user_name_key', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('email', 'text')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_users_user_name')
    .unique()
    .on('scim_users')
    .columns(['account_id', 'user_name_key'])
    .execute();
  await db.schema.createIndex('scim_users_external_id').on('scim_users').columns(['account_id', 'external_id']).execute();

  await db.schema
    .createTable('scim_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (c) => c.notNull().unique().references('collections.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('display_name_key', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('scim_groups_display_name')
    .unique()
    .on('scim_groups')
    .columns(['account_id', 'display_name_key'])
    .execute();

  await db.schema
    .createTable('scim_group_members')
    .addColumn('group_id', 'text', (c) => c.notNull().references('scim_groups.id').onDelete('cascade'))
    .addColumn('scim_user_id', 'text', (c) => c.notNull().references('scim_users.id').onDelete('cascade'))
    .addColumn('person_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('scim_group_members_pk', ['group_id', 'scim_user_id'])
    .execute();
  await db.schema.createIndex('scim_group_members_user').on('scim_group_members').columns(['scim_user_id']).execute();

  await db.schema.alterTable('users').addColumn('provisioning_suspended_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('provisioning_suspended_at').execute();
  await db.schema.dropTable('scim_group_members').execute();
  await db.schema.dropTable('scim_groups').execute();
  await db.schema.dropTable('scim_users').execute();
  await db.schema.dropTable('scim_tokens').execute();
}
