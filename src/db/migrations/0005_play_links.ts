import { type Kysely, sql } from 'kysely';

/**
 * Play links: one active link per user (enforced by a partial unique index, which both SQLite and
 * PostgreSQL support), and per-collection settings of the public pages that are not part of the
 * spec's Collection object (today: whether search engines may index the player pages).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('play_links_one_active_per_user')
    .on('play_links')
    .column('user_id')
    .unique()
    .where(sql.ref('status'), '=', 'active')
    .execute();

  await db.schema
    .createTable('play_link_settings')
    .addColumn('collection_id', 'text', (c) => c.primaryKey().references('collections.id').onDelete('cascade'))
    .addColumn('allow_indexing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('play_link_settings').execute();
  await db.schema.dropIndex('play_links_one_active_per_user').execute();
}
