/**
 * Signing in through an organisation's OpenID Connect provider: authorization code with PKCE
 * (openid-client). The state, nonce and code verifier live in one row per attempt, keyed by the
 * state's hash, bound to the browser's sign-in cookie, used once and for 10 minutes at most. The
 * callback checks what openid-client checks (issuer, audience, signature, expiry, nonce, PKCE),
 * then that the provider vouches for the e-mail address (`email_verified`) and that it lies in a
 * domain the organisation verified; only then is the person a member (just in time, with the
 * role their groups map to) and signed in.
 */
import { isoNow } from '../../lib/clock.js';
import { AppError } from '../../errors.js';
import { sha256Hex } from '../../lib/secrets.js';
import { applySsoMembership } from '../accounts/members-service.js';
import { normalizeEmail } from '../accounts/service.js';
import { recordAudit } from '../audit/service.js';
import type { Deps } from '../../deps.js';
import {
  callbackUrl,
  connectionOf,
  discoverIssuer,
  loadOpenIdClient,
  roleFromClaims,
  type SsoConnection,
  type SsoRole,
} from './service.js';
import { countSignInStatesSince, deleteOldSignInStates, insertSignInState, isVerifiedDomainOf, useSignInState } from './repo.js';

export const SSO_STATE_TTL_MS = 10 * 60_000;
export const SSO_SCOPES = 'openid email profile';
/** Sign-ins one client may start at identity providers per hour (as many as sign-in links it may ask for). */
export const SSO_STARTS_PER_HOUR = 20;
const SSO_START_WINDOW_MS = 60 * 60_000;

const refused = (message: string, cause?: unknown) =>
  new AppError('sso_sign_in_refused', message, cause === undefined ? {} : { cause });

/**
 * Each attempt writes a row and calls or sends to a provider: one client may start
 * SSO_STARTS_PER_HOUR an hour, whatever the protocol. Returns the client's address hash.
 */
export async function refuseTooManyStarts(deps: Pick<Deps, 'db' | 'clock'>, clientIp: string): Promise<string> {
  const ipHash = sha256Hex(`ip:${clientIp}`);
  const now = deps.clock.now();
  const windowStart = new Date(now.getTime() - SSO_START_WINDOW_MS);
  const recent = await countSignInStatesSince(deps.db.kysely, ipHash, windowStart.toISOString());
  if (recent.count >= SSO_STARTS_PER_HOUR) {
    const liftsAt = Date.parse(recent.oldest ?? now.toISOString()) + SSO_START_WINDOW_MS;
    const seconds = Math.max(1, Math.ceil((liftsAt - now.getTime()) / 1000));
    throw new AppError(
      'sign_in_rate_limited',
      `Too many sign-ins were started. Try again in ${Math.ceil(seconds / 60)} minutes.`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
  return ipHash;
}

/** Starts a sign-in at the organisation's provider; returns where to send the browser. */
export async function startSsoSignIn(
  deps: Deps,
  input: { connection: SsoConnection; browserSecret: string; clientIp: string; loginHint?: string },
): Promise<string> {
  const ipHash = await refuseTooManyStarts(deps, input.clientIp);
  const now = deps.clock.now();
  const config = await discoverIssuer(deps, input.connection);
  const oidc = await loadOpenIdClient();
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  await insertSignInState(deps.db.kysely, {
    state_hash: sha256Hex(state),
    account_id: input.connection.accountId,
    browser_hash: sha256Hex(input.browserSecret),
    ip_hash: ipHash,
    nonce,
    code_verifier: codeVerifier,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SSO_STATE_TTL_MS).toISOString(),
    used_at: null,
  });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: callbackUrl(deps),
    scope: SSO_SCOPES,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...(input.loginHint ? { login_hint: input.loginHint } : {}),
  });
  return url.href;
}

/**
 * Completes a sign-in from the provider's redirect (`query`: the callback's query string).
 * Refused (400 `sso_sign_in_refused`, the message saying why): an unknown, used, expired or
 * other browser's state; an answer failing openid-client's checks; an unverified e-mail address
 * or one outside the organisation's verified domains. Returns the organisation and the person.
 */
export async function finishSsoSignIn(
  deps: Deps,
  input: { query: string; browserSecret: string | null; ip: string },
): Promise<{ accountId: string; email: string }> {
  const params = new URLSearchParams(input.query);
  const state = params.get('state');
  if (!state || input.browserSecret === null) {
    throw refused('This sign-in did not start in this browser, or its cookie was blocked. Start again from the sign-in page.');
  }
  const row = await useSignInState(deps.db.kysely, {
    stateHash: sha256Hex(state),
    browserHash: sha256Hex(input.browserSecret),
    now: isoNow(deps.clock),
  });
  if (!row)
    throw refused(
      'This sign-in has expired, was already used, or started in another browser. Start again from the sign-in page.',
    );
  const connection = await connectionOf(deps, row.account_id);
  if (!connection || connection.protocol !== 'oidc') {
    throw refused('This organisation no longer signs in with OpenID Connect single sign-on.');
  }
  const providerError = params.get('error');
  if (providerError !== null) {
    throw refused(
      `The identity provider refused the sign-in (${providerError}${params.has('error_description') ? `: ${params.get('error_description')}` : ''}).`,
    );
  }
  const config = await discoverIssuer(deps, connection);
  const oidc = await loadOpenIdClient();
  let claims: Record<string, unknown>;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, new URL(`${callbackUrl(deps)}?${params}`), {
      pkceCodeVerifier: row.code_verifier,
      expectedNonce: row.nonce,
      expectedState: state,
      idTokenExpected: true,
    });
    claims = tokens.claims() ?? {};
  } catch (error) {
    const reason = failureReason(error);
    deps.logger.warn({ account_id: connection.accountId, reason }, 'sso sign-in refused by a check');
    throw refused(`The identity provider's answer failed a check (${reason}).`, error);
  }
  // Entra ID sends no `email_verified`; its `xms_edov` (the domain's owner verified the address) says the same.
  const vouched = claims.email_verified === true || claims.xms_edov === true;
  if (!vouched || typeof claims.email !== 'string') {
    throw refused('The identity provider did not confirm this e-mail address (email_verified), so it cannot sign you in here.');
  }
  let email: string;
  try {
    email = normalizeEmail(claims.email);
  } catch (error) {
    throw refused('The identity provider sent an e-mail address that is not valid.', error);
  }
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!(await isVerifiedDomainOf(deps.db.kysely, connection.accountId, domain))) {
    throw refused(`${domain} is not a verified domain of this organisation, so ${email} cannot sign in to it here.`);
  }
  const role = roleFromClaims(connection, claims);
  await applyMembershipFromProvider(deps, { accountId: connection.accountId, email, role, ip: input.ip });
  return { accountId: connection.accountId, email };
}

/**
 * Makes the person a member with `role` (just in time), or moves their role to it (never an
 * owner's), and audits what changed. Shared by both protocols, after every check passed.
 */
export async function applyMembershipFromProvider(
  deps: Deps,
  input: { accountId: string; email: string; role: SsoRole; ip: string },
): Promise<void> {
  const { accountId, email, role } = input;
  const membership = await applySsoMembership(deps, { accountId, email, role });
  const actor = { kind: 'member' as const, email };
  if (membership.change === 'joined') {
    await recordAudit(deps, {
      accountId,
      actor,
      action: 'member.joined_by_sso',
      objectId: email,
      detail: { role },
      ip: input.ip,
    });
  } else if (membership.change === 'role_changed') {
    await recordAudit(deps, {
      accountId,
      actor,
      action: 'member.role_changed_by_sso',
      objectId: email,
      detail: { from: membership.from ?? '', to: membership.to },
      ip: input.ip,
    });
  }
}

/** What went wrong, in the provider's words when it answered with an OAuth error (`invalid_grant: …`). */
function failureReason(error: unknown): string {
  const oauth = error as { error?: unknown; error_description?: unknown };
  if (typeof oauth.error === 'string') {
    return `the provider answered ${oauth.error}${typeof oauth.error_description === 'string' ? `: ${oauth.error_description}` : ''}`;
  }
  // openid-client names the kind of failure; the cause (oauth4webapi) names the claim, e.g. `unexpected JWT "aud" (audience) claim value`.
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : null;
  return cause && cause !== message ? `${message}: ${cause}` : message;
}

/** Periodic clean-up: sign-in states older than a day (they expire after 10 minutes). */
export const purgeSsoSignInStates = (deps: Pick<Deps, 'db' | 'clock'>) =>
  deleteOldSignInStates(deps.db.kysely, new Date(deps.clock.now().getTime() - 24 * 60 * 60_000).toISOString());
