import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../../db/schema.js';

export type IdempotencyRow = IdempotencyKeysTable;

/** Inserts the key unless it exists; true when this call inserted it. */
export async function insertIdempotencyKey(db: Kysely<Database>, row: IdempotencyRow): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
    .returning('key')
    .executeTakeFirst();
  return inserted !== undefined;
}

export const findIdempotencyKey = (db: Kysely<Database>, accountId: string, key: string) =>
  db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();

export interface StoredResponse {
  status: number;
  body: string;
  location: string | null;
}

export const saveIdempotentResponse = (db: Kysely<Database>, accountId: string, key: string, response: StoredResponse) =>
  db
    .updateTable('idempotency_keys')
    .set({ response_status: response.status, response_body: response.body, response_location: response.location })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .execute();

export const deleteIdempotencyKey = (db: Kysely<Database>, accountId: string, key: string) =>
  db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('key', '=', key).execute();

export const deleteExpiredIdempotencyKeys = (db: Kysely<Database>, now: string) =>
  db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).execute();
