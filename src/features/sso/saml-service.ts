/**
 * SAML 2.0 single sign-on (@node-saml/node-saml), the second protocol of an organisation's
 * connection: the same verified domains, roles from a group attribute, "SSO required" and rate
 * limit as OpenID Connect (service.ts, oidc-service.ts).
 *
 * SP-initiated: the AuthnRequest goes to the IdP by HTTP-Redirect; its ID is kept (hashed) as a
 * sign-in state bound to the browser's sign-in cookie, 10 minutes, single use. The response comes
 * back as a cross-site POST to the ACS, which carries no SameSite=Lax cookie: the ACS checks the
 * response (signed assertion, issuer, audience, recipient, destination, times, InResponseTo, the
 * assertion used once, the e-mail in a verified domain) and hands the browser a one-time ticket
 * for its next, same-site request, where the cookie is checked against the state's. IdP-initiated
 * (an unsolicited response) is accepted only when the organisation allows it; it cannot be bound
 * to a browser, which is why it is off by default.
 */
import type * as NodeSaml from '@node-saml/node-saml';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import { normalizeEmail } from '../accounts/service.js';
import { applyMembershipFromProvider, refuseTooManyStarts, SSO_STATE_TTL_MS } from './oidc-service.js';
import {
  deleteExpiredSamlRows,
  insertSignInState,
  isVerifiedDomainOf,
  findLiveSignInState,
  insertTicket,
  listSamlConnectionsByIssuer,
  recordAssertionOnce,
  useSignInStateOnce,
  useTicket,
} from './repo.js';
import { connectionOf, openConnection, type SsoConnection, type SsoRole } from './service.js';

export const SAML_METADATA_PATH = '/dashboard/sso/saml/metadata';
const SAML_ACS_PATH = '/dashboard/sso/saml/acs';
export const SAML_FINISH_PATH = '/dashboard/sso/saml/finish';
/** Our entity id is the metadata's address, as IdPs that import metadata by URL expect. */
export const spEntityId = (deps: Pick<Deps, 'config'>) => `${deps.config.baseUrl}${SAML_METADATA_PATH}`;
export const acsUrl = (deps: Pick<Deps, 'config'>) => `${deps.config.baseUrl}${SAML_ACS_PATH}`;

const EMAIL_NAME_ID_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
/** Clocks of the IdP and this server may differ by this much in NotBefore and NotOnOrAfter. */
const CLOCK_SKEW_MS = 3 * 60_000;
/** The ACS hands the browser on at once: the ticket only has to live for that redirect. */
const TICKET_TTL_MS = 2 * 60_000;
/** How long a used assertion without NotOnOrAfter is remembered (IdPs always send one in practice). */
const ASSERTION_MEMORY_MS = 24 * 60 * 60_000;

const refused = (message: string, cause?: unknown) =>
  new AppError('sso_sign_in_refused', message, cause === undefined ? {} : { cause });

/** node-saml loads with the first SAML sign-in, not at boot: most servers never use it. */
const loadNodeSaml = (): Promise<typeof NodeSaml> => import('@node-saml/node-saml');

/** The state row of an AuthnRequest: its own namespace, so an OIDC callback can never use it. */
const samlStateHash = (requestId: string) => sha256Hex(`saml:${requestId}`);

/** Our service provider's metadata, for IdPs that import it. */
export async function samlMetadata(deps: Pick<Deps, 'config'>): Promise<string> {
  const { generateServiceProviderMetadata } = await loadNodeSaml();
  return generateServiceProviderMetadata({
    issuer: spEntityId(deps),
    callbackUrl: acsUrl(deps),
    identifierFormat: EMAIL_NAME_ID_FORMAT,
    wantAssertionsSigned: true,
  });
}

async function samlFor(
  deps: Pick<Deps, 'config'>,
  connection: SsoConnection,
  options: { validateInResponseTo: 'always' | 'never'; cacheProvider: NodeSaml.CacheProvider },
): Promise<NodeSaml.SAML> {
  const { SAML, ValidateInResponseTo } = await loadNodeSaml();
  return new SAML({
    idpCert: connection.saml?.certificate ?? '',
    issuer: spEntityId(deps),
    callbackUrl: acsUrl(deps),
    entryPoint: connection.saml?.ssoUrl ?? '',
    audience: spEntityId(deps),
    identifierFormat: EMAIL_NAME_ID_FORMAT,
    // Entra ID and others refuse a requested authentication context they did not use (MFA, passkeys).
    disableRequestedAuthnContext: true,
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    validateInResponseTo: ValidateInResponseTo[options.validateInResponseTo],
    requestIdExpirationPeriodMs: SSO_STATE_TTL_MS,
    cacheProvider: options.cacheProvider,
  });
}

/** Starts a sign-in at the organisation's SAML IdP; returns where to send the browser (HTTP-Redirect). */
export async function startSamlSignIn(
  deps: Deps,
  input: { connection: SsoConnection; browserSecret: string; clientIp: string },
): Promise<string> {
  const ipHash = await refuseTooManyStarts(deps, input.clientIp);
  const now = deps.clock.now();
  // node-saml saves the AuthnRequest's ID through this provider: it becomes a row of the database,
  // so the response is recognised by whichever process receives it.
  const cacheProvider: NodeSaml.CacheProvider = {
    saveAsync: async (key, value) => {
      await insertSignInState(deps.db.kysely, {
        state_hash: samlStateHash(key),
        account_id: input.connection.accountId,
        browser_hash: sha256Hex(input.browserSecret),
        ip_hash: ipHash,
        nonce: '',
        code_verifier: '',
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + SSO_STATE_TTL_MS).toISOString(),
        used_at: null,
      });
      return { value, createdAt: now.getTime() };
    },
    getAsync: async () => null,
    removeAsync: async () => null,
  };
  const saml = await samlFor(deps, input.connection, { validateInResponseTo: 'always', cacheProvider });
  return saml.getAuthorizeUrlAsync('', undefined, {});
}

/** The attributes of the response's root element (read before any check, only to route the response). */
function rootAttribute(xml: string, name: string): string | null {
  const root = /<(?:[\w.-]+:)?Response\b([^>]*)>/.exec(xml)?.[1] ?? '';
  return new RegExp(`\\s${name}="([^"]*)"`).exec(root)?.[1] ?? null;
}

type XmlNode = { $?: Record<string, string>; _?: string } & Record<string, unknown>;
const children = (node: XmlNode | undefined, name: string): XmlNode[] => {
  const value = node?.[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
};

/** The latest NotOnOrAfter of the verified assertion: how long its ID must be remembered. */
function assertionExpiry(assertion: XmlNode, now: number): string {
  const times = [
    ...children(assertion, 'Conditions').map((c) => c.$?.NotOnOrAfter),
    ...children(assertion, 'Subject')
      .flatMap((s) => children(s, 'SubjectConfirmation'))
      .flatMap((c) => children(c, 'SubjectConfirmationData'))
      .map((d) => d.$?.NotOnOrAfter),
  ]
    .map((t) => (t ? Date.parse(t) : Number.NaN))
    .filter((t) => Number.isFinite(t));
  const latest = times.length > 0 ? Math.max(...times) + CLOCK_SKEW_MS : now + ASSERTION_MEMORY_MS;
  return new Date(latest).toISOString();
}

/** The organisation a response is for: the AuthnRequest it answers, or (unsolicited) its IdP. */
async function connectionForResponse(
  deps: Deps,
  xml: string,
  now: string,
): Promise<{ connection: SsoConnection; stateHash: string | null; browserHash: string | null; requestedAt: string | null }> {
  const inResponseTo = rootAttribute(xml, 'InResponseTo');
  if (inResponseTo !== null) {
    const stateHash = samlStateHash(inResponseTo);
    const state = await findLiveSignInState(deps.db.kysely, stateHash, now);
    if (!state) throw refused('This sign-in has expired or was already used. Start again from the sign-in page.');
    const connection = await connectionOf(deps, state.account_id);
    if (connection?.protocol !== 'saml') throw refused('This organisation no longer signs in with SAML.');
    return { connection, stateHash, browserHash: state.browser_hash, requestedAt: state.created_at };
  }
  const issuer = /<(?:[\w.-]+:)?Issuer\b[^>]*>([^<]*)</.exec(xml)?.[1]?.trim() ?? '';
  const candidates = issuer === '' ? [] : await listSamlConnectionsByIssuer(deps.db.kysely, issuer);
  if (candidates.length === 0) throw refused('No organisation signs in with this identity provider.');
  const allowing = candidates.filter((row) => row.saml_allow_idp_initiated === 1);
  const [only] = allowing;
  if (only === undefined || allowing.length > 1) {
    throw refused(
      'Sign-ins started at the identity provider are not accepted for this organisation. Start from the voicename sign-in page.',
    );
  }
  return { connection: openConnection(deps, only), stateHash: null, browserHash: null, requestedAt: null };
}

/**
 * Checks a response posted to the ACS and, when every check passes, returns a one-time ticket
 * for the browser's next request (`finishSamlSignIn`). Refused (400 `sso_sign_in_refused`): an
 * unknown, used or expired request; an unsolicited response the organisation does not accept; an
 * unsigned assertion or one signed by another key; a wrong issuer, audience, recipient or
 * destination; an assertion outside its NotBefore/NotOnOrAfter or used before; an e-mail address
 * outside the organisation's verified domains. Nothing is created before the ticket is redeemed.
 */
export async function acceptSamlResponse(deps: Deps, input: { samlResponse: string }): Promise<{ ticket: string }> {
  const now = isoNow(deps.clock);
  const samlResponse = input.samlResponse.replace(/\s+/g, '');
  const xml = Buffer.from(samlResponse, 'base64').toString('utf8');
  if (!xml.includes('Response')) throw refused('The identity provider sent no SAML response.');
  const { connection, stateHash, browserHash, requestedAt } = await connectionForResponse(deps, xml, now);
  const inResponseTo = rootAttribute(xml, 'InResponseTo');
  // The request was found above; node-saml also checks the subject's InResponseTo against it.
  const cacheProvider: NodeSaml.CacheProvider = {
    saveAsync: async () => null,
    // node-saml reads the value as the request's creation time.
    getAsync: async (key) => (key === inResponseTo ? requestedAt : null),
    removeAsync: async () => null,
  };
  const saml = await samlFor(deps, connection, { validateInResponseTo: stateHash ? 'always' : 'never', cacheProvider });
  let profile: NodeSaml.Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    deps.logger.warn({ account_id: connection.accountId, reason }, 'saml sign-in refused by a check');
    throw refused(`The identity provider's answer failed a check (${reason}).`, error);
  }
  const assertion = (profile?.getAssertion?.() as { Assertion?: XmlNode } | undefined)?.Assertion;
  if (!profile || !assertion) throw refused('The identity provider sent no assertion.');
  if (profile.issuer !== connection.issuer) {
    throw refused(`The assertion was issued by ${profile.issuer || 'nobody'}, not by this organisation's IdP.`);
  }
  const destination = rootAttribute(xml, 'Destination');
  const recipients = children(assertion, 'Subject')
    .flatMap((s) => children(s, 'SubjectConfirmation'))
    .flatMap((c) => children(c, 'SubjectConfirmationData'))
    .map((d) => d.$?.Recipient);
  if ((destination !== null && destination !== acsUrl(deps)) || !recipients.includes(acsUrl(deps))) {
    throw refused(`The response was not addressed to this service's ACS (${acsUrl(deps)}).`);
  }
  if (stateHash !== null && !(await useSignInStateOnce(deps.db.kysely, stateHash, now))) {
    throw refused('This sign-in has expired or was already used. Start again from the sign-in page.');
  }
  const assertionId = assertion.$?.ID ?? '';
  // Without an ID an assertion could not be told from its replay.
  if (assertionId === '') throw refused('The assertion has no ID.');
  const fresh = await recordAssertionOnce(deps.db.kysely, {
    assertion_hash: sha256Hex(`${connection.issuer} ${assertionId}`),
    account_id: connection.accountId,
    used_at: now,
    expires_at: assertionExpiry(assertion, deps.clock.now().getTime()),
  });
  if (!fresh) throw refused('This assertion was already used: a replayed sign-in is refused.');
  const email = emailOf(connection, profile);
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!(await isVerifiedDomainOf(deps.db.kysely, connection.accountId, domain))) {
    throw refused(`${domain} is not a verified domain of this organisation, so ${email} cannot sign in to it here.`);
  }
  const ticket = randomToken(32);
  await insertTicket(deps.db.kysely, {
    ticket_hash: sha256Hex(ticket),
    account_id: connection.accountId,
    email,
    role: roleFromAttributes(connection, profile),
    browser_hash: browserHash,
    created_at: now,
    expires_at: new Date(deps.clock.now().getTime() + TICKET_TTL_MS).toISOString(),
    used_at: null,
  });
  return { ticket };
}

/** The response's attributes by name (node-saml keeps one value as a string, several as an array). */
const attributesOf = (profile: NodeSaml.Profile): Record<string, unknown> =>
  (profile.attributes as Record<string, unknown> | undefined) ?? {};

const firstString = (value: unknown): string | null =>
  typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : null;

function emailOf(connection: SsoConnection, profile: NodeSaml.Profile): string {
  const attribute = connection.saml?.emailAttribute ?? '';
  const raw = attribute === '' ? profile.nameID : firstString(attributesOf(profile)[attribute]);
  try {
    return normalizeEmail(raw ?? '');
  } catch (error) {
    const where = attribute === '' ? 'NameID' : `attribute ${attribute}`;
    throw refused(`The identity provider sent no valid e-mail address (${where}).`, error);
  }
}

/** The highest mapped role of the group attribute's values, else the default (as for OpenID Connect). */
function roleFromAttributes(connection: SsoConnection, profile: NodeSaml.Profile): SsoRole {
  const raw = attributesOf(profile)[connection.groupClaim];
  const groups = (Array.isArray(raw) ? raw : [raw]).filter((g): g is string => typeof g === 'string');
  const mapped = groups.map((group) => connection.roleMapping[group]);
  if (mapped.includes('admin')) return 'admin';
  if (mapped.includes('viewer')) return 'viewer';
  return connection.defaultRole;
}

/**
 * Redeems the ACS's ticket in the browser's same-site request: once, within minutes, and for
 * SP-initiated sign-ins only in the browser whose sign-in cookie started it. Then the person is a
 * member (just in time, with the mapped role) and the caller opens the session.
 */
export async function finishSamlSignIn(
  deps: Deps,
  input: { ticket: string; browserSecret: string | null; ip: string },
): Promise<{ accountId: string; email: string }> {
  const row = await useTicket(deps.db.kysely, sha256Hex(input.ticket), isoNow(deps.clock));
  if (!row) throw refused('This sign-in has expired or was already used. Start again from the sign-in page.');
  if (row.browser_hash !== null && (input.browserSecret === null || sha256Hex(input.browserSecret) !== row.browser_hash)) {
    throw refused('This sign-in started in another browser, or its cookie was blocked. Start again from the sign-in page.');
  }
  const connection = await connectionOf(deps, row.account_id);
  if (connection?.protocol !== 'saml') throw refused('This organisation no longer signs in with SAML.');
  await applyMembershipFromProvider(deps, { accountId: row.account_id, email: row.email, role: row.role, ip: input.ip });
  return { accountId: row.account_id, email: row.email };
}

/** Periodic clean-up: used assertions past their expiry, tickets older than a day. */
export const purgeSamlRows = (deps: Pick<Deps, 'db' | 'clock'>) =>
  deleteExpiredSamlRows(
    deps.db.kysely,
    isoNow(deps.clock),
    new Date(deps.clock.now().getTime() - 24 * 60 * 60_000).toISOString(),
  );
