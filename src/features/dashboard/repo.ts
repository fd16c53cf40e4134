import type { Kysely, Selectable } from 'kysely';
import type { DashboardSessionsTable, DashboardSignInTokensTable, Database } from '../../db/schema.js';

type Db = Kysely<Database>;
export type SignInTokenRow = Selectable<DashboardSignInTokensTable>;
export type SessionRow = Selectable<DashboardSessionsTable>;

export const insertSignInToken = (db: Db, row: SignInTokenRow) => db.insertInto('dashboard_sign_in_tokens').values(row).execute();

/**
 * Since `since`: sign-in requests from this client, and for this address from it (the client's
 * limits), and mails sent to this address from anywhere (the address's mail budget).
 */
export async function countRecentSignInRequests(db: Db, input: { email: string; ipHash: string; since: string }) {
  const count = (where: Partial<{ email: string; ip_hash: string; mailed: number }>) => {
    let query = db
      .selectFrom('dashboard_sign_in_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_at', '>', input.since);
    if (where.email !== undefined) query = query.where('email', '=', where.email);
    if (where.ip_hash !== undefined) query = query.where('ip_hash', '=', where.ip_hash);
    if (where.mailed !== undefined) query = query.where('mailed', '=', where.mailed);
    return query.executeTakeFirstOrThrow().then((row) => Number(row.n));
  };
  const [byIp, byEmailAndIp, mailedToEmail] = await Promise.all([
    count({ ip_hash: input.ipHash }),
    count({ email: input.email, ip_hash: input.ipHash }),
    count({ email: input.email, mailed: 1 }),
  ]);
  return { byIp, byEmailAndIp, mailedToEmail };
}

/**
 * Keeps the unused links mailed to `email` since `since` working until `expiresAt` (never
 * shortening one): the mails already in the address's inbox stand in for a new one.
 */
export const extendMailedSignInLinks = (db: Db, input: { email: string; since: string; expiresAt: string }) =>
  db
    .updateTable('dashboard_sign_in_tokens')
    .set({ expires_at: input.expiresAt })
    .where('email', '=', input.email)
    .where('mailed', '=', 1)
    .where('used_at', 'is', null)
    .where('created_at', '>', input.since)
    .where('expires_at', '<', input.expiresAt)
    .execute();

/** The oldest sign-in request in the window (to say when the limit lifts). */
export const oldestSignInRequestSince = (db: Db, where: Partial<Record<'email' | 'ip_hash', string>>, since: string) =>
  db
    .selectFrom('dashboard_sign_in_tokens')
    .select('created_at')
    .$if(where.email !== undefined, (q) => q.where('email', '=', where.email as string))
    .$if(where.ip_hash !== undefined, (q) => q.where('ip_hash', '=', where.ip_hash as string))
    .where('created_at', '>', since)
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();

export const findUsableSignInToken = (db: Db, tokenHash: string, now: string): Promise<SignInTokenRow | undefined> =>
  db
    .selectFrom('dashboard_sign_in_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();

/** Marks the token used; true for exactly one caller, however many race (single use). */
export async function useSignInToken(db: Db, tokenHash: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_sign_in_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const insertSession = (db: Db, row: SessionRow) => db.insertInto('dashboard_sessions').values(row).execute();

export const findLiveSession = (db: Db, idHash: string, now: string): Promise<SessionRow | undefined> =>
  db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).where('expires_at', '>', now).executeTakeFirst();

export const deleteSession = (db: Db, idHash: string) =>
  db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();

/** Sets the organisation a session acts in. */
export const updateSessionAccount = (db: Db, idHash: string, accountId: string) =>
  db.updateTable('dashboard_sessions').set({ account_id: accountId }).where('id_hash', '=', idHash).execute();

/** Every session of the person except `keepIdHash`; returns how many ended. */
export async function deleteOtherSessions(db: Db, email: string, keepIdHash: string): Promise<number> {
  const result = await db
    .deleteFrom('dashboard_sessions')
    .where('email', '=', email)
    .where('id_hash', '!=', keepIdHash)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export const countPersonSessions = async (db: Db, email: string, now: string): Promise<number> => {
  const row = await db
    .selectFrom('dashboard_sessions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('email', '=', email)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
};

export async function deleteExpiredAuthRows(db: Db, input: { sessionsBefore: string; tokensCreatedBefore: string }) {
  const sessions = await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', input.sessionsBefore).executeTakeFirst();
  const tokens = await db
    .deleteFrom('dashboard_sign_in_tokens')
    .where('created_at', '<', input.tokensCreatedBefore)
    .executeTakeFirst();
  return { sessions: Number(sessions.numDeletedRows), tokens: Number(tokens.numDeletedRows) };
}
