import type { Kysely } from 'kysely';
import type { Database, RecordingStatus, RecordingsTable } from '../../db/schema.js';

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

/** Which of these blob keys a recording row, or an approved computer voice (pronunciations), still points at. */
export async function findReferencedBlobKeys(db: Kysely<Database>, keys: string[]): Promise<Set<string>> {
  const referenced = new Set<string>();
  for (let i = 0; i < keys.length; i += 500) {
    const slice = keys.slice(i, i + 500);
    const rows = await db
      .selectFrom('recordings')
      .select('blob_key')
      .where('blob_key', 'in', slice)
      // An approved computer voice is stored beside the person's recordings (so erasing them erases it).
      .union(
        db
          .selectFrom('pronunciations')
          .select('audio_key as blob_key')
          .where('audio_key', 'in', slice)
          .$narrowType<{ blob_key: string }>(),
      )
      .execute();
    for (const row of rows) referenced.add(row.blob_key);
  }
  return referenced;
}

// The users this feature records for. Recordings sit below users (deleting a user calls into
// recordings), so these few reads and writes of user rows live here rather than in users/repo.

/**
 * Touches the user's row and returns it: on PostgreSQL this takes the row lock, so concurrent
 * recordings and deletions of one user run one after another (SQLite serialises all writers).
 */
export const lockRecordingUser = (trx: Kysely<Database>, collectionId: string, userId: string, at: string) =>
  trx
    .updateTable('users')
    .set({ updated_at: at })
    .where('id', '=', userId)
    .where('collection_id', '=', collectionId)
    .returningAll()
    .executeTakeFirst();

export const userIsInCollection = async (db: Kysely<Database>, collectionId: string, userId: string) =>
  (await db
    .selectFrom('users')
    .select('id')
    .where('id', '=', userId)
    .where('collection_id', '=', collectionId)
    .executeTakeFirst()) !== undefined;

/** Sets the phonetic spelling with its writer record (`field_sources` JSON). */
export const setPhoneticSpelling = (
  trx: Kysely<Database>,
  userId: string,
  phoneticSpelling: string | null,
  fieldSources: string,
) =>
  trx
    .updateTable('users')
    .set({ phonetic_spelling: phoneticSpelling, field_sources: fieldSources })
    .where('id', '=', userId)
    .execute();

/**
 * Sets the person's recording status and the organiser's note (null clears it), after a new
 * recording or its deletion: nobody has listened to what is there now.
 */
export const setRecordingStatus = (trx: Kysely<Database>, userId: string, status: RecordingStatus, note: string | null) =>
  trx
    .updateTable('users')
    .set({ recording_status: status, review_note: note, listened_at: null, listened_by: null })
    .where('id', '=', userId)
    .execute();

/** The user behind a recorder-page token, with what their page shows of the collection, if it is live. */
export const findUserByRecordToken = (db: Kysely<Database>, token: string) =>
  db
    .selectFrom('users')
    .innerJoin('collections', 'collections.id', 'users.collection_id')
    .selectAll('users')
    .select([
      'collections.account_id',
      'collections.name as collection_name',
      // Not `language`: the person's own (`users.language`) comes first.
      'collections.language as collection_language',
      'collections.deadline',
      'collections.self_edit',
      'collections.organisation_name',
      'collections.intro',
      'collections.privacy_note',
      'collections.logo_key',
      'collections.brand_color',
    ])
    .where('users.record_token', '=', token)
    .where('collections.archived_at', 'is', null)
    // A person whose provisioned identity is deactivated (SCIM) loses the link at once.
    .where('users.provisioning_suspended_at', 'is', null)
    .executeTakeFirst();

/** The organiser played the person's current recording in the dashboard (only if there is one). */
export const setListened = (trx: Kysely<Database>, collectionId: string, userId: string, at: string, by: string) =>
  trx
    .updateTable('users')
    .set({ listened_at: at, listened_by: by })
    .where('id', '=', userId)
    .where('collection_id', '=', collectionId)
    .where('recording_status', '!=', 'none')
    .returning(['id', 'listened_at'])
    .executeTakeFirst();

/** People whose recording awaits a decision and was played in the dashboard, oldest recording first. */
export const listListenedAwaiting = (db: Kysely<Database>, collectionId: string) =>
  db
    .selectFrom('users')
    .select(['id', 'display_name'])
    .where('collection_id', '=', collectionId)
    .where('recording_status', '=', 'recorded')
    .where('listened_at', 'is not', null)
    .orderBy('listened_at')
    .orderBy('id')
    .execute();

export const countListenedAwaiting = async (db: Kysely<Database>, collectionId: string): Promise<number> =>
  Number(
    (
      await db
        .selectFrom('users')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('collection_id', '=', collectionId)
        .where('recording_status', '=', 'recorded')
        .where('listened_at', 'is not', null)
        .executeTakeFirstOrThrow()
    ).n,
  );
