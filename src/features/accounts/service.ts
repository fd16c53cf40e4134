/**
 * Accounts are organisations. An `accounts` row (identified by the e-mail it was created with)
 * owns API keys, collections, webhooks and claimed profiles; people belong to it as members with
 * a role. A new account starts with one member, its e-mail address, as owner.
 */
import type { Db } from '../../db/index.js';
import type { MemberRole } from '../../db/schema.js';
import { type TransactionDeps, withTransaction } from '../../db/transaction.js';
import { invalid, notFound } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { unsafeTextReason } from '../../lib/text.js';
import {
  type AccountRow,
  findAccountByEmail,
  findAccountById,
  findMember,
  insertMember,
  listMembershipsOfEmail,
  updateAccountName,
  upsertAccountByEmail,
} from './repo.js';

export type { MemberRole } from '../../db/schema.js';

export interface Account {
  id: string;
  email: string;
  /** What its members named it; null: it goes by its e-mail (see `organisationName`). */
  name: string | null;
  created_at: string;
}

export interface Member {
  accountId: string;
  email: string;
  role: MemberRole;
  createdAt: string;
  invitedBy: string | null;
}

export interface Membership {
  accountId: string;
  /** The organisation's own e-mail (the address the account was created with). */
  accountEmail: string;
  /** What the organisation is called: its name, else its e-mail. */
  organisation: string;
  role: MemberRole;
}

export const MEMBER_ROLES: readonly MemberRole[] = ['viewer', 'admin', 'owner'];

export const isMemberRole = (value: unknown): value is MemberRole => MEMBER_ROLES.includes(value as MemberRole);

/** True when `role` is at least `minimum` (viewer < admin < owner). */
export const roleAtLeast = (role: MemberRole, minimum: MemberRole): boolean =>
  MEMBER_ROLES.indexOf(role) >= MEMBER_ROLES.indexOf(minimum);

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed.length > 254 || !EMAIL.test(trimmed)) throw invalid(`"${email}" is not a valid e-mail address.`, 'email');
  return trimmed;
}

/**
 * Returns the account identified by this e-mail address, creating it on first use together with
 * its first member (that address, as owner), in one transaction.
 */
export async function ensureAccount(deps: TransactionDeps, email: string): Promise<Account> {
  const row: AccountRow = { id: newId(), email: normalizeEmail(email), name: null, created_at: isoNow(deps.clock) };
  return withTransaction(deps, async (tx) => {
    const stored = await upsertAccountByEmail(tx.trx, row);
    if (stored.id === row.id) {
      await insertMember(tx.trx, {
        account_id: row.id,
        email: row.email,
        role: 'owner',
        created_at: row.created_at,
        invited_by: null,
      });
    }
    return stored;
  });
}

/** What an organisation is called wherever the dashboard names it: its name, else its e-mail (as before names existed). */
export const organisationName = (account: { name: string | null; email: string }): string => account.name ?? account.email;

export const MAX_ORGANISATION_NAME = 100;

/**
 * Renames the organisation (trimmed, 1 to MAX_ORGANISATION_NAME characters, no control
 * characters; else 400 naming `name`). Returns the name before and after, for the audit log.
 */
export async function renameOrganisation(
  deps: TransactionDeps,
  input: { accountId: string; name: string },
): Promise<{ from: string; to: string }> {
  const name = input.name.trim().normalize('NFC');
  if (name.length === 0) throw invalid('Give the organisation a name.', 'name');
  if ([...name].length > MAX_ORGANISATION_NAME) {
    throw invalid(`The organisation’s name can be at most ${MAX_ORGANISATION_NAME} characters.`, 'name');
  }
  // One line of visible text: it heads every dashboard page and goes into mail.
  const unsafe = unsafeTextReason(name);
  if (unsafe !== null) {
    throw invalid(
      `The organisation’s name cannot contain control characters (such as line breaks or tabs), unpaired surrogates or direction overrides (found: ${unsafe}).`,
      'name',
    );
  }
  return withTransaction(deps, async (tx) => {
    const account = await findAccountById(tx.trx, input.accountId);
    if (!account) throw notFound('organisation', 'name');
    await updateAccountName(tx.trx, input.accountId, name);
    return { from: organisationName(account), to: name };
  });
}

/** The account with this (already normalised) e-mail address, if it exists. */
export const findAccountWithEmail = (deps: { db: Db }, email: string): Promise<Account | undefined> =>
  findAccountByEmail(deps.db.kysely, email);

/** The account with this id, if it exists. */
export const findAccount = (deps: { db: Db }, id: string): Promise<Account | undefined> => findAccountById(deps.db.kysely, id);

export const toMember = (row: {
  account_id: string;
  email: string;
  role: MemberRole;
  created_at: string;
  invited_by: string | null;
}): Member => ({
  accountId: row.account_id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  invitedBy: row.invited_by,
});

/** The person's membership of the organisation, or undefined when they are not (or no longer) a member. */
export async function findMembership(deps: { db: Db }, accountId: string, email: string): Promise<Member | undefined> {
  const row = await findMember(deps.db.kysely, accountId, email);
  return row ? toMember(row) : undefined;
}

/** Every organisation the person belongs to, oldest membership first. */
export async function listMemberships(deps: { db: Db }, email: string): Promise<Membership[]> {
  const rows = await listMembershipsOfEmail(deps.db.kysely, email);
  return rows.map((row) => ({
    accountId: row.account_id,
    accountEmail: row.account_email,
    organisation: organisationName({ name: row.account_name, email: row.account_email }),
    role: row.role,
  }));
}

/**
 * The organisation a person signing in acts in: their only one; the one created now when they
 * belong to none and no account has their address (first sign-in); or null when they must pick
 * one of several (or belong to none because they were removed from their own).
 */
export async function organisationAtSignIn(deps: TransactionDeps, email: string): Promise<Account | null> {
  const memberships = await listMemberships(deps, email);
  if (memberships.length === 1) return (await findAccount(deps, (memberships[0] as Membership).accountId)) ?? null;
  if (memberships.length > 1) return null;
  if (await findAccountWithEmail(deps, email)) return null;
  return ensureAccount(deps, email);
}
