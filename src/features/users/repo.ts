import type { Kysely } from 'kysely';
import type { Database, UsersTable } from '../../db/schema.js';
import { olderThanCursor } from '../../db/keyset.js';
import type { PageCursor } from '../../lib/pagination.js';
import { isUniqueViolation, uniqueViolationDetail } from '../../db/errors.js';

export type UserRow = UsersTable;
export type UserWithRecording = UserRow & { recording_user_id: string | null };

export interface UserFilters {
  hasRecording?: boolean;
  emailNormalized?: string;
  externalId?: string;
}

const usersWithRecording = (db: Kysely<Database>) =>
  db
    .selectFrom('users')
    .leftJoin('recordings', 'recordings.user_id', 'users.id')
    .selectAll('users')
    .select('recordings.user_id as recording_user_id');

export async function insertUsers(db: Kysely<Database>, rows: UserRow[]): Promise<void> {
  // Chunks keep each statement under SQLite's bound-parameter limit (15 columns per row).
  for (let i = 0; i < rows.length; i += 200)
    await db
      .insertInto('users')
      .values(rows.slice(i, i + 200))
      .execute();
}

export const findUser = (db: Kysely<Database>, collectionId: string, userId: string) =>
  usersWithRecording(db)
    .where('users.id', '=', userId)
    .where('users.collection_id', '=', collectionId)
    .executeTakeFirst() as Promise<UserWithRecording | undefined>;

export function listUsers(
  db: Kysely<Database>,
  collectionId: string,
  filters: UserFilters,
  cursor: PageCursor | null,
  limit: number,
) {
  let query = usersWithRecording(db).where('users.collection_id', '=', collectionId);
  if (filters.hasRecording !== undefined) {
    query = query.where('recordings.user_id', filters.hasRecording ? 'is not' : 'is', null);
  }
  if (filters.emailNormalized !== undefined) query = query.where('users.email_normalized', '=', filters.emailNormalized);
  if (filters.externalId !== undefined) query = query.where('users.external_id', '=', filters.externalId);
  if (cursor) {
    query = query.where(olderThanCursor('users.created_at', 'users.id', cursor));
  }
  return query.orderBy('users.created_at', 'desc').orderBy('users.id', 'desc').limit(limit).execute() as Promise<
    UserWithRecording[]
  >;
}

/**
 * Touches the user's row and returns it: on PostgreSQL this takes the row lock, so concurrent
 * recordings and deletions of one user run one after another (SQLite serialises all writers).
 */
export const lockUser = (trx: Kysely<Database>, collectionId: string, userId: string, at: string) =>
  trx
    .updateTable('users')
    .set({ updated_at: at })
    .where('id', '=', userId)
    .where('collection_id', '=', collectionId)
    .returningAll()
    .executeTakeFirst();

export const updateUserRow = (trx: Kysely<Database>, userId: string, changes: Partial<UserRow>) =>
  trx.updateTable('users').set(changes).where('id', '=', userId).returningAll().executeTakeFirstOrThrow();

export const deleteUserRow = (trx: Kysely<Database>, userId: string) =>
  trx.deleteFrom('users').where('id', '=', userId).execute();

/** Which of these e-mails / external ids are already used in the collection. */
export async function findTakenIdentifiers(
  db: Kysely<Database>,
  collectionId: string,
  emails: string[],
  externalIds: string[],
): Promise<{ emails: Set<string>; externalIds: Set<string> }> {
  const taken = { emails: new Set<string>(), externalIds: new Set<string>() };
  for (let i = 0; i < emails.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select('email_normalized')
      .where('collection_id', '=', collectionId)
      .where('email_normalized', 'in', emails.slice(i, i + 500))
      .execute();
    for (const row of rows) taken.emails.add(row.email_normalized);
  }
  for (let i = 0; i < externalIds.length; i += 500) {
    const rows = await db
      .selectFrom('users')
      .select('external_id')
      .where('collection_id', '=', collectionId)
      .where('external_id', 'in', externalIds.slice(i, i + 500))
      .execute();
    for (const row of rows) if (row.external_id !== null) taken.externalIds.add(row.external_id);
  }
  return taken;
}

/** The collection's users having one of these e-mails or external ids (chunked under parameter limits). */
export async function findUsersByIdentifiers(
  db: Kysely<Database>,
  collectionId: string,
  emails: string[],
  externalIds: string[],
): Promise<UserRow[]> {
  const found = new Map<string, UserRow>();
  const lookups: ['email_normalized' | 'external_id', string[]][] = [
    ['email_normalized', emails],
    ['external_id', externalIds],
  ];
  for (const [column, values] of lookups) {
    for (let i = 0; i < values.length; i += 500) {
      const rows = await db
        .selectFrom('users')
        .selectAll()
        .where('collection_id', '=', collectionId)
        .where(column, 'in', values.slice(i, i + 500))
        .execute();
      for (const row of rows) found.set(row.id, row);
    }
  }
  return [...found.values()];
}

/** Rewrites existing users' editable columns, many per statement (an upsert on the primary key). */
export async function updateUserRows(trx: Kysely<Database>, rows: UserRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await trx
      .insertInto('users')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          email: eb.ref('excluded.email'),
          email_normalized: eb.ref('excluded.email_normalized'),
          first_name: eb.ref('excluded.first_name'),
          last_name: eb.ref('excluded.last_name'),
          display_name: eb.ref('excluded.display_name'),
          preferred_name: eb.ref('excluded.preferred_name'),
          pronouns: eb.ref('excluded.pronouns'),
          external_id: eb.ref('excluded.external_id'),
          phonetic_spelling: eb.ref('excluded.phonetic_spelling'),
          custom_fields: eb.ref('excluded.custom_fields'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Which unique rule an insert/update broke, from either database's error. */
export function uniqueViolation(error: unknown): 'email' | 'external_id' | null {
  if (!isUniqueViolation(error)) return null;
  const text = uniqueViolationDetail(error);
  if (/email/.test(text)) return 'email';
  if (/external_id/.test(text)) return 'external_id';
  return null;
}
