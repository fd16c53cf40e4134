/**
 * Dashboard sign-in and sessions. Passwordless: an e-mailed, single-use, 15-minute link signs
 * a browser in; the account is identified by its e-mail address and created on first sign-in.
 * Only SHA-256 hashes of link tokens and session ids are stored, so a copy of the database
 * signs nobody in. Form tokens (CSRF) are derived from the session id with HMAC, so they need
 * no storage and a database copy cannot forge them either.
 */
import { createHmac } from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { TransactionDeps } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { EMAIL_CHANNEL, type MessageChannels } from '../../integrations/channels/registry.js';
import { DEFAULT_LOCALE } from '../../i18n/index.js';
import { type Clock, isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { acceptInvitation } from '../accounts/members-service.js';
import {
  type Account,
  findAccount,
  findMembership,
  type Member,
  normalizeEmail,
  organisationAtSignIn,
} from '../accounts/service.js';
import { linkSignInRefusedBySso, type SsoDeps, ssoRequiredOf } from '../sso/service.js';
import {
  countPersonSessions,
  countRecentSignInRequests,
  deleteExpiredAuthRows,
  deleteOtherSessions,
  deleteSession,
  extendMailedSignInLinks,
  findLiveSession,
  findUsableSignInToken,
  insertSession,
  insertSignInToken,
  oldestSignInRequestSince,
  updateSessionAccount,
  useSignInToken,
} from './repo.js';

export interface DashboardDeps extends TransactionDeps {
  channels: Pick<MessageChannels, 'get'>;
  config: SsoDeps['config'];
  logger: SsoDeps['logger'];
}

export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** Links per hour for one address asked from one client: a stranger cannot use up the address's allowance. */
export const SIGN_IN_LIMIT_PER_EMAIL_AND_IP = 5;
/** Links per hour asked from one client, whatever the addresses. */
export const SIGN_IN_LIMIT_PER_IP = 20;
/**
 * Sign-in mails one address receives per hour, whoever asks: the cap on mail to an address. It is
 * not a refusal: past it, a request keeps the links already mailed working instead (see requestSignIn).
 */
export const SIGN_IN_MAILS_PER_EMAIL = 5;
export const SIGN_IN_WINDOW_MS = 60 * 60_000;
/** Sign-in rows are kept this long (for the rate limit), whatever their state. */
const SIGN_IN_ROW_RETENTION_MS = 24 * 60 * 60_000;
/** 32 random bytes, base64url. */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const signInPath = (token: string) => `/dashboard/sign-in/${token}`;

/** HMAC of a fixed label keyed with a browser secret (session id or sign-in binding): the form token. */
export const formToken = (secret: string): string =>
  createHmac('sha256', secret).update('voicename-dashboard-form').digest('base64url');

/** Constant-time check of a submitted form token against the one derived from `secret`. */
export const checkFormToken = (secret: string | null, submitted: unknown): boolean =>
  secret !== null && typeof submitted === 'string' && safeEqual(formToken(secret), submitted);

/** A fresh random secret for a cookie (session id or sign-in binding). */
export const newBrowserSecret = (): string => randomToken(32);

/**
 * Sends a sign-in link to `email` (valid or not as an account: the answer is the same, so the
 * form reveals nothing about who has an account). The link is single-use and expires after
 * 15 minutes; it is bound to the asking browser through `browserSecret` (its hash is stored),
 * so opening it in that browser signs in at once and anywhere else asks for a confirmation.
 *
 * Only the asking client is ever refused: 5 links per hour for one address from one client, 20
 * per hour from one client (429 `sign_in_rate_limited` with Retry-After, and no mail), so
 * requests from elsewhere can never lock the address's owner out. What strangers can spend is
 * the address's mail budget (5 mails per hour from everyone together); past it no mail is sent
 * and, with the same answer, the unused links mailed in the last hour are kept working for
 * another 15 minutes, so the owner signs in with a mail already in their inbox. A relay failure
 * is 503 `mail_unavailable`.
 */
export async function requestSignIn(
  deps: DashboardDeps,
  input: { email: string; clientIp: string; browserSecret: string | null },
): Promise<{ email: string }> {
  const email = normalizeEmail(input.email);
  // Members of an organisation that requires single sign-on use it; its owners keep the link (break-glass).
  if (await linkSignInRefusedBySso(deps, email)) {
    throw new AppError(
      'sso_required',
      'Your organisation requires single sign-on: sign in through its identity provider, not with an e-mailed link. If it is down, ask an owner of the organisation.',
    );
  }
  const now = deps.clock.now();
  const since = new Date(now.getTime() - SIGN_IN_WINDOW_MS).toISOString();
  const ipHash = sha256Hex(`ip:${input.clientIp}`);
  const counts = await countRecentSignInRequests(deps.db.kysely, { email, ipHash, since });
  // The first limit reached decides when asking works again.
  const reached = [
    { hit: counts.byEmailAndIp >= SIGN_IN_LIMIT_PER_EMAIL_AND_IP, where: { email, ip_hash: ipHash } },
    { hit: counts.byIp >= SIGN_IN_LIMIT_PER_IP, where: { ip_hash: ipHash } },
  ].find((limit) => limit.hit);
  if (reached) {
    const oldest = await oldestSignInRequestSince(deps.db.kysely, reached.where, since);
    const liftsAt = oldest ? Date.parse(oldest.created_at) + SIGN_IN_WINDOW_MS : now.getTime() + SIGN_IN_WINDOW_MS;
    const seconds = Math.max(1, Math.ceil((liftsAt - now.getTime()) / 1000));
    throw new AppError(
      'sign_in_rate_limited',
      `Too many sign-in links were asked for. Try again in ${Math.ceil(seconds / 60)} minutes.`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }
  const mail = counts.mailedToEmail < SIGN_IN_MAILS_PER_EMAIL;
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS).toISOString();
  await insertSignInToken(deps.db.kysely, {
    token_hash: sha256Hex(token),
    email,
    browser_hash: input.browserSecret === null ? null : sha256Hex(input.browserSecret),
    ip_hash: ipHash,
    mailed: mail ? 1 : 0,
    created_at: now.toISOString(),
    expires_at: expiresAt,
    used_at: null,
  });
  if (!mail) {
    await extendMailedSignInLinks(deps.db.kysely, { email, since, expiresAt });
    return { email };
  }
  const link = `${deps.config.baseUrl}${signInPath(token)}`;
  try {
    // Sign-in links go by e-mail whatever other channels exist: the account is its address.
    await deps.channels.get(EMAIL_CHANNEL).send(email, { kind: 'sign_in', locale: DEFAULT_LOCALE, data: { link } });
  } catch (error) {
    throw new AppError('mail_unavailable', 'The sign-in e-mail could not be sent. Try again in a few minutes.', {
      cause: error,
    });
  }
  return { email };
}

export type SignInResult =
  /** `account` is null when the person belongs to several organisations (or none) and must pick one. */
  { kind: 'signed_in'; sessionId: string; account: Account | null; expiresAt: string } | { kind: 'confirm'; email: string };

const linkInvalid = () =>
  new AppError('sign_in_link_invalid', 'This sign-in link has expired or has already been used. Ask for a new one.');

/**
 * Redeems a sign-in link. With `confirmed` false (the link was simply opened), it signs in
 * only the browser that asked for the link (its `browserSecret` matches); any other browser
 * (another device, or a mail scanner following links) gets `confirm` and nothing is used up.
 * With `confirmed` true (the person pressed "Sign in" on that confirmation) it signs in.
 * Signing in uses the link up (exactly once, even under races), creates the account on first
 * use and opens a session lasting SESSION_TTL, in the person's only organisation (or in none yet
 * when they belong to several: they pick one). A bad, used or expired link: 400 `sign_in_link_invalid`.
 */
export async function completeSignIn(
  deps: DashboardDeps,
  input: { token: string; browserSecret: string | null; confirmed: boolean; userAgent: string | undefined },
): Promise<SignInResult> {
  if (!SECRET_PATTERN.test(input.token)) throw linkInvalid();
  const tokenHash = sha256Hex(input.token);
  const nowIso = isoNow(deps.clock);
  const row = await findUsableSignInToken(deps.db.kysely, tokenHash, nowIso);
  if (!row) throw linkInvalid();
  const sameBrowser =
    row.browser_hash !== null && input.browserSecret !== null && safeEqual(sha256Hex(input.browserSecret), row.browser_hash);
  if (!sameBrowser && !input.confirmed) return { kind: 'confirm', email: row.email };
  if (!(await useSignInToken(deps.db.kysely, tokenHash, nowIso))) throw linkInvalid();
  const account = await organisationAtSignIn(deps, row.email);
  return { kind: 'signed_in', account, ...(await openSession(deps, row.email, account, input.userAgent)) };
}

/**
 * Opens a session for a person the organisation's identity provider just signed in (see
 * `finishSsoSignIn`): it acts in that organisation, and counts as single sign-on there.
 */
export async function signInWithSso(
  deps: DashboardDeps,
  input: { accountId: string; email: string; userAgent: string | undefined },
): Promise<{ sessionId: string; expiresAt: string }> {
  const account = await findAccount(deps, input.accountId);
  if (!account) throw notFound('organisation', 'account');
  return openSession(deps, input.email, account, input.userAgent, account.id);
}

async function openSession(
  deps: DashboardDeps,
  email: string,
  account: Account | null,
  userAgent: string | undefined,
  ssoAccountId: string | null = null,
) {
  const sessionId = newBrowserSecret();
  const expiresAt = new Date(deps.clock.now().getTime() + deps.config.dashboard.sessionTtlMs).toISOString();
  await insertSession(deps.db.kysely, {
    id_hash: sha256Hex(sessionId),
    email,
    account_id: account?.id ?? null,
    created_at: isoNow(deps.clock),
    expires_at: expiresAt,
    user_agent: userAgent?.slice(0, 200) ?? null,
    sso_account_id: ssoAccountId,
  });
  return { sessionId, expiresAt };
}

/**
 * Redeems an invitation link (see `acceptInvitation`: single use, 7 days) and signs its address
 * in to the inviting organisation: the link was mailed to that address, as a sign-in link is.
 */
export async function signInWithInvitation(
  deps: DashboardDeps,
  input: { token: string; userAgent: string | undefined },
): Promise<{ sessionId: string; account: Account; expiresAt: string }> {
  const { account, email } = await acceptInvitation(deps, input.token);
  return { account, ...(await openSession(deps, email, account, input.userAgent)) };
}

/**
 * Signs `email` in to `account` without a link: for a sign-in another system vouched for (an LTI
 * launch, whose platform signed who the person is). The caller has checked the membership.
 */
export const signInVouchedFor = (
  deps: DashboardDeps,
  input: { email: string; account: Account; userAgent: string | undefined },
) => openSession(deps, input.email, input.account, input.userAgent);

/** A signed-in browser: the person, whichever organisation they act in (if any yet). */
export interface SignedInPerson {
  email: string;
  /** The raw session id from the cookie (to derive form tokens). */
  sessionId: string;
  expiresAt: string;
  /** The form token every state-changing form of this session must carry. */
  csrfToken: string;
  /** The organisation whose identity provider opened this session; null for an e-mailed link. */
  ssoAccountId: string | null;
}

/** A signed-in member acting in an organisation (`account`), with their role there. */
export interface DashboardSession extends SignedInPerson {
  account: Account;
  member: Member;
}

/**
 * The live session for a cookie value, or null (missing, malformed, expired or signed out).
 * `organisation` is null while the person has not picked an organisation, or is no longer a
 * member of the one the session acted in (removal takes effect at the next request).
 */
export async function findDashboardSession(
  deps: DashboardDeps,
  sessionId: string | undefined,
): Promise<{ person: SignedInPerson; organisation: DashboardSession | null } | null> {
  if (sessionId === undefined || !SECRET_PATTERN.test(sessionId)) return null;
  const row = await findLiveSession(deps.db.kysely, sha256Hex(sessionId), isoNow(deps.clock));
  if (!row) return null;
  const person: SignedInPerson = {
    email: row.email,
    sessionId,
    expiresAt: row.expires_at,
    csrfToken: formToken(sessionId),
    ssoAccountId: row.sso_account_id,
  };
  if (row.account_id === null) return { person, organisation: null };
  const [account, member] = await Promise.all([
    findAccount(deps, row.account_id),
    findMembership(deps, row.account_id, row.email),
  ]);
  if (!account || !member) return { person, organisation: null };
  // An organisation requiring single sign-on accepts only sessions its provider opened (owners aside).
  if (row.sso_account_id !== account.id && (await ssoRequiredOf(deps, account.id, member.role))) {
    return { person, organisation: null };
  }
  return { person, organisation: { ...person, account, member } };
}

/** Makes the session act in another of the person's organisations (not a member there: 404). */
export async function switchOrganisation(deps: DashboardDeps, person: SignedInPerson, accountId: string): Promise<void> {
  const member = await findMembership(deps, accountId, person.email);
  if (!member) throw notFound('organisation of yours', 'account');
  if (person.ssoAccountId !== accountId && (await ssoRequiredOf(deps, accountId, member.role))) {
    throw new AppError(
      'sso_required',
      'This organisation requires single sign-on: sign out, then sign in through its identity provider.',
    );
  }
  await updateSessionAccount(deps.db.kysely, sha256Hex(person.sessionId), accountId);
}

/** Ends this session (sign out). Idempotent. */
export async function signOut(deps: DashboardDeps, sessionId: string): Promise<void> {
  await deleteSession(deps.db.kysely, sha256Hex(sessionId));
}

/** Ends every other session of the person (other browsers and devices); returns how many. */
export const signOutOtherSessions = (deps: DashboardDeps, person: SignedInPerson): Promise<number> =>
  deleteOtherSessions(deps.db.kysely, person.email, sha256Hex(person.sessionId));

/** Live sessions of the person (this one included). */
export const countSessions = (deps: DashboardDeps, email: string): Promise<number> =>
  countPersonSessions(deps.db.kysely, email, isoNow(deps.clock));

/** Periodic clean-up: expired sessions, and sign-in rows older than a day. */
export async function purgeDashboardAuth(deps: { db: Db; clock: Clock }) {
  const now = deps.clock.now();
  return deleteExpiredAuthRows(deps.db.kysely, {
    sessionsBefore: now.toISOString(),
    tokensCreatedBefore: new Date(now.getTime() - SIGN_IN_ROW_RETENTION_MS).toISOString(),
  });
}
