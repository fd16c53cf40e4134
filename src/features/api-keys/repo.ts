import type { Kysely } from 'kysely';
import type { ApiKeysTable, Database } from '../../db/schema.js';

export type ApiKeyRow = ApiKeysTable;

export const insertApiKey = (db: Kysely<Database>, row: ApiKeyRow) => db.insertInto('api_keys').values(row).execute();

export const findApiKeyByPrefix = (db: Kysely<Database>, prefix: string): Promise<ApiKeyRow | undefined> =>
  db.selectFrom('api_keys').selectAll().where('prefix', '=', prefix).executeTakeFirst();

export const listApiKeysByAccount = (db: Kysely<Database>, accountId: string): Promise<ApiKeyRow[]> =>
  db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();

export async function revokeApiKeyById(db: Kysely<Database>, id: string, accountId: string | null, at: string) {
  let query = db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null);
  if (accountId !== null) query = query.where('account_id', '=', accountId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const touchApiKey = (db: Kysely<Database>, id: string, at: string) =>
  db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
