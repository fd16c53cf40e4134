import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export interface AccountRow {
  id: string;
  email: string;
  created_at: string;
}

export const findAccountByEmail = (db: Kysely<Database>, email: string): Promise<AccountRow | undefined> =>
  db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();

export const findAccountById = (db: Kysely<Database>, id: string): Promise<AccountRow | undefined> =>
  db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

/** Inserts the account unless the e-mail exists; returns the stored row either way. */
export async function upsertAccountByEmail(db: Kysely<Database>, row: AccountRow): Promise<AccountRow> {
  await db
    .insertInto('accounts')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  const stored = await findAccountByEmail(db, row.email);
  if (!stored) throw new Error('account vanished after upsert');
  return stored;
}
