/**
 * Members of an organisation: invitations by e-mail (single use, 7 days), role changes and
 * removals. Every change takes the organisation's row lock first, so the rule that an
 * organisation always keeps at least one owner holds even when two owners act at once.
 */
import type { MemberRole } from '../../db/schema.js';
import { type TransactionDeps, withTransaction } from '../../db/transaction.js';
import { AppError, invalid, notFound } from '../../errors.js';
import { DEFAULT_LOCALE } from '../../i18n/index.js';
import { EMAIL_CHANNEL, type MessageChannels } from '../../integrations/channels/registry.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, newId, randomToken } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import {
  countInvitationsSince,
  countOwners,
  deleteMember,
  deleteInvitation,
  deleteOldInvitations,
  expireLiveInvitations,
  findAccountById,
  findMember,
  findUsableInvitation,
  insertInvitation,
  insertMember,
  listMembersOfAccount,
  listPendingInvitations,
  lockAccount,
  updateMemberRole,
  useInvitation,
} from './repo.js';
import { type Account, isMemberRole, type Member, normalizeEmail, organisationName, toMember } from './service.js';

export type MembersDeps = TransactionDeps & { channels: Pick<MessageChannels, 'get'>; config: { baseUrl: string } };

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/** Invitations one organisation may send per hour: owners cannot turn the mailer into a spam relay. */
export const INVITATIONS_PER_HOUR = 20;
const INVITATION_WINDOW_MS = 60 * 60_000;
/** 32 random bytes, base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const invitationPath = (token: string) => `/dashboard/invitations/${token}`;

export interface PendingInvitation {
  id: string;
  email: string;
  role: MemberRole;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

const requireRole = (role: unknown): MemberRole => {
  if (!isMemberRole(role)) throw invalid('The role must be owner, admin or viewer.', 'role');
  return role;
};

/** The organisation's members, oldest first. */
export const listMembers = async (deps: TransactionDeps, accountId: string): Promise<Member[]> =>
  (await listMembersOfAccount(deps.db.kysely, accountId)).map(toMember);

/** Invitations not yet used and not expired, newest first. */
export async function listInvitations(deps: TransactionDeps, accountId: string): Promise<PendingInvitation[]> {
  const rows = await listPendingInvitations(deps.db.kysely, accountId, isoNow(deps.clock));
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    invitedBy: row.invited_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  }));
}

/**
 * Invites `email` to the organisation with `role` and mails the link (by e-mail, like
 * sign-in links). A newer invitation to the same address replaces a pending one. Refused: a bad
 * address or role (400), an existing member (409 `member_exists`), more than
 * INVITATIONS_PER_HOUR in the last hour (429 `invitation_rate_limited`, Retry-After); a relay
 * failure is 503 `mail_unavailable` and leaves no invitation behind.
 */
export async function inviteMember(
  deps: MembersDeps,
  input: { accountId: string; invitedBy: string; email: string; role: unknown },
): Promise<PendingInvitation & { id: string }> {
  const email = normalizeEmail(input.email);
  const role = requireRole(input.role);
  const token = randomToken(32);
  const now = deps.clock.now();
  const row = {
    id: newId(),
    token_hash: sha256Hex(token),
    account_id: input.accountId,
    email,
    role,
    invited_by: input.invitedBy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    used_at: null,
  };
  const account = await withTransaction(deps, async (tx) => {
    await lockAccount(tx.trx, input.accountId);
    if (await findMember(tx.trx, input.accountId, email)) {
      throw new AppError('member_exists', `${email} is already a member of this organisation.`, { param: 'email' });
    }
    const since = new Date(now.getTime() - INVITATION_WINDOW_MS).toISOString();
    if ((await countInvitationsSince(tx.trx, input.accountId, since)) >= INVITATIONS_PER_HOUR) {
      throw new AppError('invitation_rate_limited', `At most ${INVITATIONS_PER_HOUR} invitations an hour. Try again later.`, {
        headers: { 'retry-after': String(INVITATION_WINDOW_MS / 1000) },
      });
    }
    await expireLiveInvitations(tx.trx, input.accountId, { email }, row.created_at);
    await insertInvitation(tx.trx, row);
    return findAccountById(tx.trx, input.accountId);
  });
  const link = `${deps.config.baseUrl}${invitationPath(token)}`;
  try {
    // Members are their e-mail address (they sign in with it), so this goes by e-mail on any channel set-up.
    await deps.channels.get(EMAIL_CHANNEL).send(email, {
      kind: 'member_invitation',
      locale: DEFAULT_LOCALE,
      data: { invitedBy: input.invitedBy, organisation: account ? organisationName(account) : '', role, link },
    });
  } catch (error) {
    await deleteInvitation(deps.db.kysely, row.id);
    throw new AppError('mail_unavailable', 'The invitation e-mail could not be sent. Try again in a few minutes.', {
      cause: error,
    });
  }
  return { id: row.id, email, role, invitedBy: input.invitedBy, createdAt: row.created_at, expiresAt: row.expires_at };
}

/** Withdraws a pending invitation of the organisation (another organisation's id: 404). */
export async function cancelInvitation(deps: TransactionDeps, accountId: string, id: string): Promise<void> {
  const withdrawn = isUuid(id) ? await expireLiveInvitations(deps.db.kysely, accountId, { id }, isoNow(deps.clock)) : 0;
  if (withdrawn === 0) throw notFound('pending invitation', 'id');
}

const invitationInvalid = () =>
  new AppError('invitation_invalid', 'This invitation has expired, was withdrawn or has already been used. Ask for a new one.');

/** What an unused invitation offers (for the confirmation page); uses nothing up. */
export async function previewInvitation(
  deps: TransactionDeps,
  token: string,
): Promise<{ email: string; role: MemberRole; organisation: string; invitedBy: string }> {
  if (!TOKEN_PATTERN.test(token)) throw invitationInvalid();
  const row = await findUsableInvitation(deps.db.kysely, sha256Hex(token), isoNow(deps.clock));
  const account = row ? await findAccountById(deps.db.kysely, row.account_id) : undefined;
  if (!row || !account) throw invitationInvalid();
  return { email: row.email, role: row.role, organisation: organisationName(account), invitedBy: row.invited_by };
}

/**
 * Redeems an invitation: uses it up (exactly once, even under races) and makes its address a
 * member with its role (someone who is a member already keeps the role they have). Returns the
 * organisation and the person, for the caller to sign them in. Bad, used, expired or withdrawn:
 * 400 `invitation_invalid`.
 */
export async function acceptInvitation(deps: TransactionDeps, token: string): Promise<{ account: Account; email: string }> {
  if (!TOKEN_PATTERN.test(token)) throw invitationInvalid();
  const tokenHash = sha256Hex(token);
  const now = isoNow(deps.clock);
  return withTransaction(deps, async (tx) => {
    const row = await findUsableInvitation(tx.trx, tokenHash, now);
    if (!row || !(await useInvitation(tx.trx, tokenHash, now))) throw invitationInvalid();
    const account = await findAccountById(tx.trx, row.account_id);
    if (!account) throw invitationInvalid();
    await insertMember(tx.trx, {
      account_id: row.account_id,
      email: row.email,
      role: row.role,
      created_at: now,
      invited_by: row.invited_by,
    });
    return { account, email: row.email };
  });
}

/**
 * Makes `email` a member with `role` unless they are one already (who then keeps the role they
 * have): the just-in-time membership of someone a trusted platform vouches for (an LTI launch).
 * Answers whether a membership was created.
 */
export async function addMemberJustInTime(
  deps: TransactionDeps,
  input: { accountId: string; email: string; role: MemberRole; via: string },
): Promise<boolean> {
  return insertMember(deps.db.kysely, {
    account_id: input.accountId,
    email: input.email.trim().toLowerCase(),
    role: input.role,
    created_at: isoNow(deps.clock),
    invited_by: input.via,
  });
}

/** Checks that taking `email`'s owner role away leaves another owner (409 `last_owner`). */
async function requireAnotherOwner(trx: Parameters<typeof countOwners>[0], accountId: string, verb: string) {
  if ((await countOwners(trx, accountId)) <= 1) {
    throw new AppError('last_owner', `The organisation's only owner cannot be ${verb}. Make another member owner first.`);
  }
}

/** Gives a member another role. Unknown member: 404; demoting the last owner: 409 `last_owner`. */
export async function changeMemberRole(
  deps: TransactionDeps,
  input: { accountId: string; email: string; role: unknown },
): Promise<{ from: MemberRole; to: MemberRole }> {
  const role = requireRole(input.role);
  const email = input.email.trim().toLowerCase();
  return withTransaction(deps, async (tx) => {
    await lockAccount(tx.trx, input.accountId);
    const member = await findMember(tx.trx, input.accountId, email);
    if (!member) throw notFound('member', 'email');
    if (member.role === 'owner' && role !== 'owner') await requireAnotherOwner(tx.trx, input.accountId, 'demoted');
    await updateMemberRole(tx.trx, input.accountId, email, role);
    return { from: member.role, to: role };
  });
}

/** Who `invited_by` names for a member who joined through their organisation's identity provider. */
export const JOINED_BY_SSO = 'single sign-on';

/**
 * Just-in-time membership of a person the organisation's identity provider signed in: a new member
 * with `role`, or an existing one whose role follows the provider's (never an owner's: owners are
 * made and unmade in the dashboard only). Returns what happened, for the audit log.
 */
export async function applySsoMembership(
  deps: TransactionDeps,
  input: { accountId: string; email: string; role: Exclude<MemberRole, 'owner'> },
): Promise<{ change: 'joined' | 'role_changed' | 'none'; from: MemberRole | null; to: MemberRole }> {
  const email = normalizeEmail(input.email);
  return withTransaction(deps, async (tx) => {
    await lockAccount(tx.trx, input.accountId);
    const member = await findMember(tx.trx, input.accountId, email);
    if (!member) {
      await insertMember(tx.trx, {
        account_id: input.accountId,
        email,
        role: input.role,
        created_at: isoNow(deps.clock),
        invited_by: JOINED_BY_SSO,
      });
      return { change: 'joined' as const, from: null, to: input.role };
    }
    if (member.role === 'owner' || member.role === input.role)
      return { change: 'none' as const, from: member.role, to: member.role };
    await updateMemberRole(tx.trx, input.accountId, email, input.role);
    return { change: 'role_changed' as const, from: member.role, to: input.role };
  });
}

/**
 * Removes a member (their sessions in this organisation stop working at their next request).
 * Unknown member: 404; the last owner: 409 `last_owner`.
 */
export async function removeMember(deps: TransactionDeps, input: { accountId: string; email: string }): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await withTransaction(deps, async (tx) => {
    await lockAccount(tx.trx, input.accountId);
    const member = await findMember(tx.trx, input.accountId, email);
    if (!member) throw notFound('member', 'email');
    if (member.role === 'owner') await requireAnotherOwner(tx.trx, input.accountId, 'removed');
    await deleteMember(tx.trx, input.accountId, email);
  });
}

/** Periodic clean-up: invitations that expired more than a day ago. */
export const purgeInvitations = (deps: TransactionDeps) =>
  deleteOldInvitations(deps.db.kysely, new Date(deps.clock.now().getTime() - 24 * 60 * 60_000).toISOString());
