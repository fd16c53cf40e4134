import type { Kysely } from 'kysely';
import type { Database, RecordingsTable } from '../../db/schema.js';

export type RecordingRow = RecordingsTable;

export const findRecording = (db: Kysely<Database>, userId: string) =>
  db.selectFrom('recordings').selectAll().where('user_id', '=', userId).executeTakeFirst();

export const insertRecording = (trx: Kysely<Database>, row: RecordingRow) => trx.insertInto('recordings').values(row).execute();

export const replaceRecording = (trx: Kysely<Database>, row: RecordingRow) =>
  trx
    .updateTable('recordings')
    .set({
      blob_key: row.blob_key,
      mime_type: row.mime_type,
      byte_size: row.byte_size,
      duration_ms: row.duration_ms,
      recorded_at: row.recorded_at,
    })
    .where('user_id', '=', row.user_id)
    .execute();

export const deleteRecordingRow = (trx: Kysely<Database>, userId: string) =>
  trx.deleteFrom('recordings').where('user_id', '=', userId).execute();

export const findActivePlayLink = (db: Kysely<Database>, userId: string) =>
  db
    .selectFrom('play_links')
    .selectAll()
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .orderBy('created_at', 'desc')
    .executeTakeFirst();

/** Which of these blob keys a recording row still points at. */
export async function findReferencedBlobKeys(db: Kysely<Database>, keys: string[]): Promise<Set<string>> {
  const referenced = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const rows = await db
      .selectFrom('recordings')
      .select('blob_key')
      .where('blob_key', 'in', keys.slice(i, i + 500))
      .execute();
    for (const row of rows) referenced.add(row.blob_key);
  }
  return referenced;
}
