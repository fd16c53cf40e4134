import type { Db } from '../../db/index.js';
import { invalid } from '../../errors.js';
import { type Clock, isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { type AccountRow, findAccountByEmail, findAccountById, upsertAccountByEmail } from './repo.js';

export interface Account {
  id: string;
  email: string;
  created_at: string;
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed.length > 254 || !EMAIL.test(trimmed)) throw invalid(`"${email}" is not a valid e-mail address.`, 'email');
  return trimmed;
}

/**
 * Returns the account identified by this e-mail address, creating it on first use.
 * Accounts are identified by e-mail only; sign-in belongs to the dashboard.
 */
export async function ensureAccount(deps: { db: Db; clock: Clock }, email: string): Promise<Account> {
  const row: AccountRow = { id: newId(), email: normalizeEmail(email), created_at: isoNow(deps.clock) };
  return upsertAccountByEmail(deps.db.kysely, row);
}

/** The account with this (already normalised) e-mail address, if it exists. */
export const findAccountWithEmail = (deps: { db: Db }, email: string): Promise<Account | undefined> =>
  findAccountByEmail(deps.db.kysely, email);

/** The account with this id, if it exists. */
export const findAccount = (deps: { db: Db }, id: string): Promise<Account | undefined> => findAccountById(deps.db.kysely, id);
