import type { Kysely } from 'kysely';

/**
 * Erasure that leaves proof and not data: one record per erasure (what kind, when, by whom, how
 * many objects; no names, addresses or voices), and a tombstone per erased play-link token (its
 * SHA-256 only) so the token's public URLs answer 410 Gone instead of 404.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('erasures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    // `collection` (erased at once or after the retention window).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    // `api_key`, `member` or `retention`.
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    // JSON object of counts: users, recordings, play_links, audio_files, events, deliveries.
    .addColumn('counts', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('erasures_account_page').on('erasures').columns(['account_id', 'created_at', 'id']).execute();
  await db.schema
    .createTable('erased_play_links')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('erased_at', 'text', (c) => c.notNull())
    .execute();
  // Archived collections past the retention window, oldest first.
  await db.schema.createIndex('collections_archived_at').on('collections').column('archived_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('collections_archived_at').execute();
  await db.schema.dropTable('erased_play_links').execute();
  await db.schema.dropTable('erasures').execute();
}
