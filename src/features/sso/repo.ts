/**
 * Every query of single sign-on: connections, claimed e-mail domains and sign-in states, and
 * SAML's used assertions and tickets.
 */
import type { Kysely } from 'kysely';
import type {
  Database,
  SsoConnectionsTable,
  SsoDomainsTable,
  SsoSamlTicketsTable,
  SsoSignInStatesTable,
} from '../../db/schema.js';

type Q = Kysely<Database>;

export const findConnection = (db: Q, accountId: string): Promise<SsoConnectionsTable | undefined> =>
  db.selectFrom('sso_connections').selectAll().where('account_id', '=', accountId).executeTakeFirst();

/** Inserts or replaces the organisation's connection (one per organisation). */
export async function upsertConnection(db: Q, row: SsoConnectionsTable): Promise<void> {
  const { account_id: _accountId, created_at: _createdAt, ...changes } = row;
  await db
    .insertInto('sso_connections')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doUpdateSet(changes))
    .execute();
}

export async function deleteConnection(db: Q, accountId: string): Promise<boolean> {
  const result = await db.deleteFrom('sso_connections').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export const listDomains = (db: Q, accountId: string): Promise<SsoDomainsTable[]> =>
  db.selectFrom('sso_domains').selectAll().where('account_id', '=', accountId).orderBy('domain').execute();

export const findDomain = (db: Q, accountId: string, id: string): Promise<SsoDomainsTable | undefined> =>
  db.selectFrom('sso_domains').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();

export async function insertDomain(db: Q, row: SsoDomainsTable): Promise<void> {
  await db.insertInto('sso_domains').values(row).execute();
}

export async function markDomainVerified(db: Q, input: { accountId: string; id: string; now: string }): Promise<void> {
  await db
    .updateTable('sso_domains')
    .set({ verified_at: input.now })
    .where('account_id', '=', input.accountId)
    .where('id', '=', input.id)
    .execute();
}

export async function deleteDomain(db: Q, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sso_domains').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** The organisation with a connection whose verified domains include `domain`, if any. */
export const findConnectionByVerifiedDomain = (db: Q, domain: string): Promise<SsoConnectionsTable | undefined> =>
  db
    .selectFrom('sso_domains')
    .innerJoin('sso_connections', 'sso_connections.account_id', 'sso_domains.account_id')
    .selectAll('sso_connections')
    .where('sso_domains.domain', '=', domain)
    .where('sso_domains.verified_at', 'is not', null)
    .executeTakeFirst();

/** Whether `domain` is a verified domain of the organisation. */
export async function isVerifiedDomainOf(db: Q, accountId: string, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('sso_domains')
    .select('id')
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('verified_at', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Organisations requiring SSO in which `email` is a member, with the member's role. */
export const listSsoRequiredMemberships = (db: Q, email: string) =>
  db
    .selectFrom('account_members')
    .innerJoin('sso_connections', 'sso_connections.account_id', 'account_members.account_id')
    .select(['account_members.account_id', 'account_members.role'])
    .where('account_members.email', '=', email)
    .where('sso_connections.sso_required', '=', 1)
    .execute();

/** Sign-in attempts sent to a provider from one client since `since`, and the oldest of them. */
export async function countSignInStatesSince(
  db: Q,
  ipHash: string,
  since: string,
): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('sso_sign_in_states')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('ip_hash', '=', ipHash)
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return { count: Number(row?.count ?? 0), oldest: (row?.oldest as string | null | undefined) ?? null };
}

export async function insertSignInState(db: Q, row: SsoSignInStatesTable): Promise<void> {
  await db.insertInto('sso_sign_in_states').values(row).execute();
}

/**
 * Uses up a live sign-in state of this browser and returns it: exactly one caller gets the row,
 * however many race with the same state (a replayed callback, or another browser, gets nothing).
 */
export async function useSignInState(
  db: Q,
  input: { stateHash: string; browserHash: string; now: string },
): Promise<SsoSignInStatesTable | undefined> {
  const { stateHash, now } = input;
  const result = await db
    .updateTable('sso_sign_in_states')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('browser_hash', '=', input.browserHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('sso_sign_in_states').selectAll().where('state_hash', '=', stateHash).executeTakeFirst();
}

export async function deleteOldSignInStates(db: Q, createdBefore: string): Promise<number> {
  const result = await db.deleteFrom('sso_sign_in_states').where('created_at', '<', createdBefore).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** SAML connections whose IdP has this entity id (several organisations may share one IdP). */
export const listSamlConnectionsByIssuer = (db: Q, issuer: string): Promise<SsoConnectionsTable[]> =>
  db.selectFrom('sso_connections').selectAll().where('protocol', '=', 'saml').where('issuer', '=', issuer).execute();

/** A live, unused sign-in state (the AuthnRequest a response answers), without using it up. */
export const findLiveSignInState = (db: Q, stateHash: string, now: string): Promise<SsoSignInStatesTable | undefined> =>
  db
    .selectFrom('sso_sign_in_states')
    .selectAll()
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();

/** Uses up a live sign-in state whatever the browser (the ACS POST carries no cookie); true for exactly one caller. */
export async function useSignInStateOnce(db: Q, stateHash: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('sso_sign_in_states')
    .set({ used_at: now })
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records an assertion as used; false when it was used before (a replay), in any process. */
export async function recordAssertionOnce(
  db: Q,
  row: { assertion_hash: string; account_id: string; used_at: string; expires_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('sso_saml_assertions')
    .values(row)
    .onConflict((oc) => oc.column('assertion_hash').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function insertTicket(db: Q, row: SsoSamlTicketsTable): Promise<void> {
  await db.insertInto('sso_saml_tickets').values(row).execute();
}

/** Uses up a live ticket and returns it: exactly one caller gets the row. */
export async function useTicket(db: Q, ticketHash: string, now: string): Promise<SsoSamlTicketsTable | undefined> {
  const result = await db
    .updateTable('sso_saml_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', ticketHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return undefined;
  return db.selectFrom('sso_saml_tickets').selectAll().where('ticket_hash', '=', ticketHash).executeTakeFirst();
}

/** Periodic clean-up: assertions past their expiry (a replay of them fails its time check anyway), old tickets. */
export async function deleteExpiredSamlRows(db: Q, now: string, ticketsBefore: string): Promise<number> {
  const assertions = await db.deleteFrom('sso_saml_assertions').where('expires_at', '<', now).executeTakeFirst();
  const tickets = await db.deleteFrom('sso_saml_tickets').where('created_at', '<', ticketsBefore).executeTakeFirst();
  return Number(assertions.numDeletedRows) + Number(tickets.numDeletedRows);
}
