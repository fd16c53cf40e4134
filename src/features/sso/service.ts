/**
 * Single sign-on settings of an organisation: one identity provider, OpenID Connect (issuer,
 * client id, client secret sealed at rest) or SAML 2.0 (saml-service.ts), with the group claim and
 * its mapping to roles, the default role, and whether members must use it. Which organisation an e-mail address signs in with is
 * decided by its domain, and only by domains the organisation verified (domain-service.ts).
 */
import type * as OpenIdClient from 'openid-client';
import type { Deps } from '../../deps.js';
import type { MemberRole } from '../../db/schema.js';
import { AppError, invalid } from '../../errors.js';
import { checkOutboundUrl, OutboundError } from '../../integrations/outbound-http.js';
import { isoNow } from '../../lib/clock.js';
import { loadSecretBox } from '../../lib/secret-box.js';
import { unsafeTextReason } from '../../lib/text.js';
import { cachedDiscovery, forgetDiscovery, rememberDiscovery } from './discovery-cache.js';
import { outboundFetch, type OutboundSeams } from './outbound-fetch.js';
import {
  deleteConnection,
  findConnection,
  findConnectionByVerifiedDomain,
  listSsoRequiredMemberships,
  upsertConnection,
} from './repo.js';

export type SsoDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'logger'> & OutboundSeams;

/** Roles an identity provider may grant: never owner (owners are made in the dashboard only). */
export type SsoRole = Exclude<MemberRole, 'owner'>;
export const SSO_ROLES: readonly SsoRole[] = ['viewer', 'admin'];
const isSsoRole = (value: unknown): value is SsoRole => SSO_ROLES.includes(value as SsoRole);

export const CALLBACK_PATH = '/dashboard/sso/callback';
export const callbackUrl = (deps: Pick<Deps, 'config'>) => `${deps.config.baseUrl}${CALLBACK_PATH}`;

/** The settings as the dashboard shows them: the secret is never among them. */
export interface SsoSettings {
  protocol: 'oidc' | 'saml';
  /** OpenID Connect: the issuer URL; SAML: the IdP's entity id. */
  issuer: string;
  clientId: string;
  groupClaim: string;
  roleMapping: Record<string, SsoRole>;
  defaultRole: SsoRole;
  ssoRequired: boolean;
  updatedAt: string;
  /** SAML only (null for OpenID Connect). */
  saml: SamlIdpSettings | null;
}

export interface SamlIdpSettings {
  ssoUrl: string;
  certificate: string;
  /** The attribute holding the e-mail address; empty: the NameID. */
  emailAttribute: string;
  allowIdpInitiated: boolean;
}

/** The connection with its secret opened, for the sign-in flow only. */
export interface SsoConnection extends SsoSettings {
  accountId: string;
  clientSecret: string;
}

const secretPurpose = (accountId: string) => `sso-client-secret:${accountId}`;

const toSettings = (row: NonNullable<Awaited<ReturnType<typeof findConnection>>>): SsoSettings => ({
  protocol: row.protocol,
  issuer: row.issuer,
  clientId: row.client_id,
  groupClaim: row.group_claim,
  roleMapping: JSON.parse(row.role_mapping) as Record<string, SsoRole>,
  defaultRole: row.default_role,
  ssoRequired: row.sso_required === 1,
  updatedAt: row.updated_at,
  saml:
    row.protocol === 'saml'
      ? {
          ssoUrl: row.saml_sso_url ?? '',
          certificate: row.saml_idp_cert ?? '',
          emailAttribute: row.saml_email_attribute ?? '',
          allowIdpInitiated: row.saml_allow_idp_initiated === 1,
        }
      : null,
});

export async function ssoSettingsOf(deps: SsoDeps, accountId: string): Promise<SsoSettings | null> {
  const row = await findConnection(deps.db.kysely, accountId);
  return row ? toSettings(row) : null;
}

/** The connection routing `email` (its domain verified by an organisation with SSO), or null. */
export async function connectionForEmail(deps: SsoDeps, email: string): Promise<SsoConnection | null> {
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  const row = await findConnectionByVerifiedDomain(deps.db.kysely, domain);
  return row ? openConnection(deps, row) : null;
}

export async function connectionOf(deps: SsoDeps, accountId: string): Promise<SsoConnection | null> {
  const row = await findConnection(deps.db.kysely, accountId);
  return row ? openConnection(deps, row) : null;
}

export function openConnection(deps: SsoDeps, row: NonNullable<Awaited<ReturnType<typeof findConnection>>>): SsoConnection {
  // A SAML connection has no secret: the IdP's certificate is public.
  const clientSecret =
    row.protocol === 'saml' ? '' : loadSecretBox(deps.config).open(row.client_secret_sealed, secretPurpose(row.account_id));
  return { ...toSettings(row), accountId: row.account_id, clientSecret };
}

/**
 * Whether an e-mailed link may sign `email` in: not when they are a member of an organisation
 * that requires SSO, unless they own it (the owner keeps the link as a way in when the identity
 * provider is down or misconfigured).
 */
export async function linkSignInRefusedBySso(deps: SsoDeps, email: string): Promise<boolean> {
  const memberships = await listSsoRequiredMemberships(deps.db.kysely, email);
  return memberships.some((membership) => membership.role !== 'owner');
}

/** Whether `accountId` requires SSO of a member with `role` (owners never: break-glass). */
export async function ssoRequiredOf(deps: SsoDeps, accountId: string, role: MemberRole): Promise<boolean> {
  if (role === 'owner') return false;
  const row = await findConnection(deps.db.kysely, accountId);
  return row?.sso_required === 1;
}

/** Reads `group = role` lines (one per line; blank lines skipped) into a mapping. */
export function parseRoleMapping(text: string): Record<string, SsoRole> {
  const mapping: Record<string, SsoRole> = {};
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.lastIndexOf('=');
    const group = line.slice(0, Math.max(0, at)).trim();
    const role = line
      .slice(at + 1)
      .trim()
      .toLowerCase();
    if (at <= 0 || group === '' || !isSsoRole(role)) {
      throw invalid(`Line ${index + 1} of the group mapping must read "group = admin" or "group = viewer".`, 'role_mapping');
    }
    mapping[group] = role;
  }
  return mapping;
}

export const requireText = (value: string, field: string, label: string, max = 500): string => {
  const text = value.trim();
  if (text === '' || text.length > max || unsafeTextReason(text) !== null) {
    throw invalid(`${label} is required (one line, at most ${max} characters).`, field);
  }
  return text;
};

/** openid-client loads with the first single sign-on, not at boot: most servers never use it. */
export const loadOpenIdClient = (): Promise<typeof OpenIdClient> => import('openid-client');

/**
 * The issuer's metadata, read through the SSRF-safe client unless this process read it for the
 * same connection in the last minutes (see discovery-cache.ts); `fresh` always reads it, as when
 * the settings are saved. Refusals say what failed.
 */
export async function discoverIssuer(
  deps: SsoDeps,
  connection: { issuer: string; clientId: string; clientSecret: string },
  options: { fresh?: boolean } = {},
): Promise<OpenIdClient.Configuration> {
  const now = deps.clock.now().getTime();
  const cached = options.fresh ? null : cachedDiscovery(connection, now);
  if (cached) return cached;
  const config = await readIssuerMetadata(deps, connection);
  rememberDiscovery(connection, config, now);
  return config;
}

async function readIssuerMetadata(
  deps: SsoDeps,
  connection: { issuer: string; clientId: string; clientSecret: string },
): Promise<OpenIdClient.Configuration> {
  const allowPrivate = deps.config.webhooks.allowPrivateUrls;
  try {
    await checkOutboundUrl(connection.issuer, { allowPrivate, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  } catch (error) {
    if (error instanceof OutboundError)
      throw new AppError('sso_discovery_failed', `Issuer URL refused: ${error.message}`, { param: 'issuer' });
    throw error;
  }
  const oidc = await loadOpenIdClient();
  try {
    const execute = allowPrivate && connection.issuer.startsWith('http:') ? [oidc.allowInsecureRequests] : [];
    return await oidc.discovery(
      new URL(connection.issuer),
      connection.clientId,
      undefined,
      oidc.ClientSecretBasic(connection.clientSecret),
      { [oidc.customFetch]: outboundFetch(allowPrivate, deps.config.webhooks.outboundProxyUrl, deps), execute },
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new AppError('sso_discovery_failed', `The issuer's OpenID Connect metadata could not be read: ${reason}`, {
      param: 'issuer',
      cause: error,
    });
  }
}

/**
 * Saves the organisation's identity provider after reading its metadata (a typo in the issuer is
 * refused now, not at the first sign-in). An empty `clientSecret` keeps the stored one. Returns
 * what changed, for the audit log (never the secret).
 */
export async function saveSsoSettings(
  deps: SsoDeps,
  accountId: string,
  input: {
    issuer: string;
    clientId: string;
    clientSecret: string;
    groupClaim: string;
    roleMapping: string;
    defaultRole: string;
    ssoRequired: boolean;
  },
): Promise<{ changed: string[] }> {
  const issuer = requireText(input.issuer, 'issuer', 'The issuer URL', 2000).replace(/\/+$/, '');
  const clientId = requireText(input.clientId, 'client_id', 'The client id');
  const groupClaim = requireText(input.groupClaim || 'groups', 'group_claim', 'The group claim', 100);
  const roleMapping = parseRoleMapping(input.roleMapping);
  if (!isSsoRole(input.defaultRole)) throw invalid('The default role must be admin or viewer.', 'default_role');
  const stored = await connectionOf(deps, accountId);
  // Switching from SAML starts afresh: nothing of the SAML connection carries over.
  const existing = stored?.protocol === 'oidc' ? stored : null;
  const clientSecret = input.clientSecret.trim() === '' ? existing?.clientSecret : input.clientSecret.trim();
  if (clientSecret === undefined || clientSecret.length > 1000) throw invalid('The client secret is required.', 'client_secret');
  // The edited connection's metadata is read anew, and no process-held copy of the old one stays.
  if (stored?.protocol === 'oidc') forgetDiscovery(stored.issuer);
  forgetDiscovery(issuer);
  await discoverIssuer(deps, { issuer, clientId, clientSecret }, { fresh: true });
  const now = isoNow(deps.clock);
  const next = { issuer, clientId, groupClaim, roleMapping, defaultRole: input.defaultRole, ssoRequired: input.ssoRequired };
  await upsertConnection(deps.db.kysely, {
    account_id: accountId,
    issuer,
    client_id: clientId,
    client_secret_sealed: loadSecretBox(deps.config).seal(clientSecret, secretPurpose(accountId)),
    group_claim: groupClaim,
    role_mapping: JSON.stringify(roleMapping),
    default_role: input.defaultRole,
    sso_required: input.ssoRequired ? 1 : 0,
    created_at: now,
    updated_at: now,
    protocol: 'oidc',
    saml_sso_url: null,
    saml_idp_cert: null,
    saml_email_attribute: null,
    saml_allow_idp_initiated: 0,
  });
  const changed = existing
    ? (Object.keys(next) as (keyof typeof next)[]).filter((key) => JSON.stringify(next[key]) !== JSON.stringify(existing[key]))
    : ['created'];
  if (existing && clientSecret !== existing.clientSecret) changed.push('clientSecret');
  deps.logger.info({ account_id: accountId, changed }, 'sso settings saved');
  return { changed };
}

/** Removes the organisation's identity provider (its domains stay, unused, until removed). */
export async function removeSsoSettings(deps: SsoDeps, accountId: string): Promise<void> {
  const stored = await connectionOf(deps, accountId);
  if (stored?.protocol === 'oidc') forgetDiscovery(stored.issuer);
  await deleteConnection(deps.db.kysely, accountId);
}

/** The role a member signing in through the identity provider gets: the first mapped group, else the default. */
export function roleFromClaims(
  connection: Pick<SsoSettings, 'groupClaim' | 'roleMapping' | 'defaultRole'>,
  claims: Record<string, unknown>,
): SsoRole {
  const raw = claims[connection.groupClaim];
  const groups = Array.isArray(raw)
    ? raw.filter((g): g is string => typeof g === 'string')
    : typeof raw === 'string'
      ? [raw]
      : [];
  // The most powerful mapped role wins when the person is in several mapped groups.
  const mapped = groups.map((group) => connection.roleMapping[group]).filter((role): role is SsoRole => role !== undefined);
  if (mapped.includes('admin')) return 'admin';
  if (mapped.includes('viewer')) return 'viewer';
  return connection.defaultRole;
}
