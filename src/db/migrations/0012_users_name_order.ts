import type { Kysely } from 'kysely';

/**
 * The dashboard's people table sorts a collection by name, 100 at a time, with a keyset cursor
 * of `(display_name, id)`: this index answers every page of it as a range, however deep.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('users_collection_name').on('users').columns(['collection_id', 'display_name', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('users_collection_name').execute();
}
