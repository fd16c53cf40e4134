import type { Kysely, Selectable } from 'kysely';
import type { AccountInvitationsTable, AccountMembersTable, Database, MemberRole } from '../../db/schema.js';

type Db = Kysely<Database>;
export type MemberRow = Selectable<AccountMembersTable>;
export type InvitationRow = Selectable<AccountInvitationsTable>;

export interface AccountRow {
  id: string;
  email: string;
  name: string | null;
  created_at: string;
}

export const findAccountByEmail = (db: Db, email: string): Promise<AccountRow | undefined> =>
  db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();

export const findAccountById = (db: Db, id: string): Promise<AccountRow | undefined> =>
  db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();

/** Inserts the account unless the e-mail exists; returns the stored row either way. */
export async function upsertAccountByEmail(db: Db, row: AccountRow): Promise<AccountRow> {
  await db
    .insertInto('accounts')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .execute();
  const stored = await findAccountByEmail(db, row.email);
  if (!stored) throw new Error('account vanished after upsert');
  return stored;
}

/**
 * Takes the organisation's row lock until the transaction ends (a no-op write: PostgreSQL locks
 * the row; SQLite runs one write transaction at a time anyway), so two member changes of one
 * organisation never interleave and the last-owner check cannot be raced.
 */
export const lockAccount = (db: Db, accountId: string) =>
  db
    .updateTable('accounts')
    .set((eb) => ({ email: eb.ref('email') }))
    .where('id', '=', accountId)
    .execute();

export const updateAccountName = (db: Db, accountId: string, name: string | null) =>
  db.updateTable('accounts').set({ name }).where('id', '=', accountId).execute();

// --- Members ---------------------------------------------------------------------------

/** Adds the member unless (organisation, e-mail) is already one; true when added. */
export async function insertMember(db: Db, row: MemberRow): Promise<boolean> {
  const result = await db
    .insertInto('account_members')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'email']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export const findMember = (db: Db, accountId: string, email: string): Promise<MemberRow | undefined> =>
  db.selectFrom('account_members').selectAll().where('account_id', '=', accountId).where('email', '=', email).executeTakeFirst();

export const listMembersOfAccount = (db: Db, accountId: string): Promise<MemberRow[]> =>
  db
    .selectFrom('account_members')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('email')
    .execute();

/** Every organisation this e-mail belongs to, with the organisation's own e-mail, oldest first. */
export const listMembershipsOfEmail = (db: Db, email: string) =>
  db
    .selectFrom('account_members as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .select(['m.account_id', 'm.role', 'm.created_at', 'a.email as account_email', 'a.name as account_name'])
    .where('m.email', '=', email)
    .orderBy('m.created_at')
    .orderBy('m.account_id')
    .execute();

export async function countOwners(db: Db, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('account_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const updateMemberRole = (db: Db, accountId: string, email: string, role: MemberRole) =>
  db.updateTable('account_members').set({ role }).where('account_id', '=', accountId).where('email', '=', email).execute();

export const deleteMember = (db: Db, accountId: string, email: string) =>
  db.deleteFrom('account_members').where('account_id', '=', accountId).where('email', '=', email).execute();

// --- Invitations -----------------------------------------------------------------------

export const insertInvitation = (db: Db, row: InvitationRow) => db.insertInto('account_invitations').values(row).execute();

/** Invitations of the organisation created since `since` (the sending limit). */
export async function countInvitationsSince(db: Db, accountId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('account_invitations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const listPendingInvitations = (db: Db, accountId: string, now: string): Promise<InvitationRow[]> =>
  db
    .selectFrom('account_invitations')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .execute();

/**
 * Withdraws the organisation's live invitations (all to `where.email`, or the one `where.id`) by
 * expiring them now; the rows stay, so they still count towards the hourly sending limit.
 * Returns how many were live.
 */
export async function expireLiveInvitations(db: Db, accountId: string, where: { email: string } | { id: string }, now: string) {
  const result = await db
    .updateTable('account_invitations')
    .set({ expires_at: now })
    .where('account_id', '=', accountId)
    .$if('email' in where, (q) => q.where('email', '=', (where as { email: string }).email))
    .$if('id' in where, (q) => q.where('id', '=', (where as { id: string }).id))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Deletes an invitation whose e-mail could not be sent. */
export const deleteInvitation = (db: Db, id: string) => db.deleteFrom('account_invitations').where('id', '=', id).execute();

export const findUsableInvitation = (db: Db, tokenHash: string, now: string): Promise<InvitationRow | undefined> =>
  db
    .selectFrom('account_invitations')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();

/** Marks the invitation used; true for exactly one caller, however many race (single use). */
export async function useInvitation(db: Db, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('account_invitations')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Invitations that expired or were used before `before` (periodic clean-up). */
export async function deleteOldInvitations(db: Db, before: string): Promise<number> {
  const result = await db.deleteFrom('account_invitations').where('expires_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
