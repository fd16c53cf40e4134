import type { Kysely } from 'kysely';

/**
 * Stage sync (name cards scanned at the stage stairs bring the person up on every reader).
 *
 * `collections.lineup_order` is the order the organiser set for the ceremony: `import`,
 * `display_name`, `last_name` or `custom:<field key>`; the reader and the name cards follow it.
 *
 * `stage_codes` holds each person's card code: random, stored, unique within the collection, so
 * a card identifies its person to the scanner without carrying anything else (not the record
 * link's capability, not an id the API knows). Made when the cards are first printed; erased
 * with the person.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('collections')
    .addColumn('lineup_order', 'text', (c) => c.notNull().defaultTo('import'))
    .execute();
  await db.schema
    .createTable('stage_codes')
    .addColumn('user_id', 'text', (col) => col.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('collection_id', 'text', (col) => col.notNull().references('collections.id').onDelete('cascade'))
    .addColumn('code', 'text', (col) => col.notNull())
    .addColumn('created_at', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('stage_codes_collection_code')
    .on('stage_codes')
    .columns(['collection_id', 'code'])
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stage_codes').execute();
  await db.schema.alterTable('collections').dropColumn('lineup_order').execute();
}
