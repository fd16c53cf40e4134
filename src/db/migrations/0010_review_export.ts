import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * Review of recordings and ordered exports: a collection may require an organiser's approval
 * before a recording counts; each person carries their recording status and the organiser's
 * note; and the position of a person within the request that created them, so a batch or CSV
 * import can be read back in the order it was given (its rows share one `created_at`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('collections')
    .addColumn('review_required', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // `none`, `recorded`, `approved` or `needs_rerecord`.
  await db.schema
    .alterTable('users')
    .addColumn('recording_status', 'text', (c) => c.notNull().defaultTo('none'))
    .execute();
  await db.schema.alterTable('users').addColumn('review_note', 'text').execute();
  await db.schema
    .alterTable('users')
    .addColumn('import_position', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update users set recording_status = 'recorded' where id in (select user_id from recordings)`.execute(db);
  // The users list filtered by status, newest first, as an index range.
  await db.schema
    .createIndex('users_collection_status_page')
    .on('users')
    .columns(['collection_id', 'recording_status', 'created_at', 'id'])
    .execute();
  // Import order (exports, reader view): oldest first, then position within the import.
  await db.schema
    .createIndex('users_collection_import_order')
    .on('users')
    .columns(['collection_id', 'created_at', 'import_position', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_collection_import_order').execute();
  await db.schema.dropIndex('users_collection_status_page').execute();
  for (const column of ['import_position', 'review_note', 'recording_status']) {
    await db.schema.alterTable('users').dropColumn(column).execute();
  }
  await db.schema.alterTable('collections').dropColumn('review_required').execute();
}
