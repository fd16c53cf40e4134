/**
 * LTI Dynamic Registration 1.0 (IMS): a platform registers the tool itself from a URL an LMS
 * administrator pastes into it.
 *
 * The URL carries a secret an owner or admin minted on the dashboard's LMS page: it names one
 * organisation, expires after `LINK_LIFETIME_MS`, is used up by the registration it makes and can
 * be revoked before; only its SHA-256 is stored. Without it the registration endpoint is closed,
 * so a stranger cannot attach a platform to an organisation.
 *
 * The platform opens the URL with `openid_configuration` (its configuration's URL) and
 * `registration_token` (a bearer token for its registration endpoint). The tool reads the
 * configuration through the SSRF-safe outbound client, checks it (the issuer on the URL's host,
 * the LTI platform block, the endpoints, RS256), and on the administrator's confirmation posts its
 * client registration; the answer's client id (and deployment id, when given) is stored as a
 * hand-made registration would be, in the transaction that uses the secret up.
 */
import { withTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../errors.js';
import { type HostLookup, OutboundError, outboundRefusal, sendOutbound } from '../../integrations/outbound-http.js';
import { customerBoundRules } from '../../integrations/customer-bound.js';
import { isoNow } from '../../lib/clock.js';
import { isUuid, newId, randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { recordAudit } from '../audit/service.js';
import { findAccount, organisationName } from '../accounts/service.js';
import {
  checkRegistrationInput,
  type Registration,
  type RegistrationDeps,
  registrationTaken,
  toolUrls,
  toRegistration,
} from './registration-service.js';
import {
  findRegistrationLinkByPrefix,
  insertRegistration,
  insertRegistrationLink,
  listOpenRegistrationLinks,
  type RegistrationLinkRow,
  type RegistrationRow,
  revokeRegistrationLinkRow,
  useRegistrationLink,
} from './repo.js';

export const LINK_LIFETIME_MS = 7 * 24 * 60 * 60_000;
/** Token layout: `vnltireg_` + 12-character lookup id + 32-character secret (24 random bytes). */
const TOKEN_PATTERN = /^(vnltireg_[A-Za-z0-9_-]{12})[A-Za-z0-9_-]{32}$/;
const MAX_CONFIGURATION_BYTES = 64 * 1024;
const MAX_URL = 2000;
const PLATFORM_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-platform-configuration';
const TOOL_CONFIGURATION = 'https://purl.imsglobal.org/spec/lti-tool-configuration';
const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';

export interface RegistrationLinkView {
  id: string;
  prefix: string;
  createdBy: string;
  createdAt: string;
  expiresAt: string;
}

/** The URL to paste into the platform: the path carries the secret, so the platform's own query parameters cannot clash with it. */
export const registrationUrl = (baseUrl: string, token: string) => `${baseUrl}/lti/register/${token}`;

const linkView = (row: RegistrationLinkRow): RegistrationLinkView => ({
  id: row.id,
  prefix: row.prefix,
  createdBy: row.created_by,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export async function createRegistrationLink(deps: RegistrationDeps, accountId: string, createdBy: string) {
  const lookup = `vnltireg_${randomToken(9)}`;
  const token = `${lookup}${randomToken(24)}`;
  const now = deps.clock.now();
  const row: RegistrationLinkRow = {
    id: newId(),
    account_id: accountId,
    prefix: lookup,
    token_hash: sha256Hex(token),
    created_by: createdBy,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + LINK_LIFETIME_MS).toISOString(),
    used_at: null,
    registration_id: null,
    revoked_at: null,
  };
  await insertRegistrationLink(deps.db.kysely, row);
  return { ...linkView(row), url: registrationUrl(deps.config.baseUrl, token) };
}

export const listRegistrationLinks = async (deps: RegistrationDeps, accountId: string): Promise<RegistrationLinkView[]> =>
  (await listOpenRegistrationLinks(deps.db.kysely, accountId, isoNow(deps.clock))).map(linkView);

/** Revokes the organisation's unused link; another organisation's id, or a used or revoked one, is a 404. */
export async function revokeRegistrationLink(deps: RegistrationDeps, accountId: string, id: string): Promise<void> {
  const revoked = isUuid(id) && (await revokeRegistrationLinkRow(deps.db.kysely, accountId, id, isoNow(deps.clock)));
  if (!revoked) throw new AppError('resource_missing', 'No such unused registration URL in your organisation.');
}

const linkRefused = (message: string) => new AppError('lti_registration_link_invalid', message);

/** The link of `token`, still usable now; refused otherwise (one message per reason: the caller holds the secret). */
async function openLink(deps: RegistrationDeps, token: string): Promise<RegistrationLinkRow> {
  const prefix = TOKEN_PATTERN.exec(token)?.[1];
  const row = prefix === undefined ? undefined : await findRegistrationLinkByPrefix(deps.db.kysely, prefix);
  if (!row || !safeEqual(row.token_hash, sha256Hex(token))) {
    throw linkRefused('This registration URL is not valid. Ask the organisation’s voicename administrator for a new one.');
  }
  if (row.used_at !== null) throw linkRefused('This registration URL was already used. Each URL registers one platform.');
  if (row.revoked_at !== null) throw linkRefused('This registration URL was revoked in voicename.');
  if (row.expires_at <= isoNow(deps.clock)) throw linkRefused('This registration URL has expired. Make a new one in voicename.');
  return row;
}

/** What the platform's configuration says, once checked. */
export interface PlatformConfiguration {
  issuer: string;
  /** The origin of the configuration's URL: the platform's pages that frame the registration. */
  origin: string;
  registrationEndpoint: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  jwksUri: string;
  productFamily: string | null;
}

/** The deps of a registration, with the outbound client's test seams (production deps never set them). */
type PlatformDeps = RegistrationDeps & {
  /** Resolver override, so a test name resolves to a public-looking address. */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the platform's certificate, instead of the system's. */
  trustedCa?: string;
};

const badConfiguration = (why: string) =>
  new AppError('lti_platform_configuration_invalid', `The platform’s configuration cannot be used: ${why}`);

async function usableUrl(deps: RegistrationDeps, value: unknown, name: string): Promise<string> {
  if (typeof value !== 'string' || value === '') throw badConfiguration(`it has no ${name}.`);
  if (value.length > MAX_URL) throw badConfiguration(`its ${name} is too long.`);
  const refusal = await outboundRefusal(value, { allowPrivate: deps.config.webhooks.allowPrivateUrls, resolve: false });
  if (refusal) throw badConfiguration(`its ${name} is not usable (${refusal.message})`);
  return value;
}

/** Reads the platform's OpenID configuration through the SSRF-safe client and checks it as the specification asks. */
export async function readPlatformConfiguration(deps: PlatformDeps, configurationUrl: string): Promise<PlatformConfiguration> {
  const url = await usableUrl(deps, configurationUrl, 'configuration URL (openid_configuration)');
  let answer;
  try {
    answer = await sendOutbound({
      url,
      method: 'GET',
      headers: { accept: 'application/json' },
      ...customerBoundRules(deps),
      maxBodyBytes: MAX_CONFIGURATION_BYTES,
      timeoutMs: 10_000,
    });
  } catch (error) {
    const why = error instanceof OutboundError ? error.message : 'the request failed';
    throw badConfiguration(`it could not be read (${why}).`);
  }
  if (answer.status !== 200 || answer.truncated) throw badConfiguration(`reading it answered status ${answer.status}.`);
  let document: Record<string, unknown>;
  try {
    document = JSON.parse(answer.bodySnippet) as Record<string, unknown>;
    if (typeof document !== 'object' || document === null || Array.isArray(document)) throw new Error('not an object');
  } catch {
    throw badConfiguration('it is not a JSON object.');
  }
  const issuer = document.issuer;
  if (typeof issuer !== 'string' || !URL.canParse(issuer)) throw badConfiguration('it has no issuer.');
  // The specification's defence against a configuration naming another platform's issuer.
  if (new URL(issuer).host !== new URL(url).host) {
    throw badConfiguration(`its issuer (${issuer}) is not on the host of the configuration’s URL.`);
  }
  const platform = document[PLATFORM_CONFIGURATION];
  if (typeof platform !== 'object' || platform === null) throw badConfiguration('it has no LTI platform configuration.');
  const algorithms = document.id_token_signing_alg_values_supported;
  if (!Array.isArray(algorithms) || !algorithms.includes('RS256'))
    throw badConfiguration('it does not sign id_tokens with RS256.');
  const family = (platform as Record<string, unknown>).product_family_code;
  return {
    issuer,
    origin: new URL(url).origin,
    registrationEndpoint: await usableUrl(deps, document.registration_endpoint, 'registration endpoint'),
    authorizationEndpoint: await usableUrl(deps, document.authorization_endpoint, 'authorization endpoint'),
    tokenEndpoint: await usableUrl(deps, document.token_endpoint, 'token endpoint'),
    jwksUri: await usableUrl(deps, document.jwks_uri, 'key set URL (jwks_uri)'),
    productFamily: typeof family === 'string' ? family.slice(0, 100) : null,
  };
}

export interface RegistrationRequest {
  token: string;
  openidConfiguration: string | undefined;
  registrationToken: string | undefined;
}

/** The registration token goes into a header: printable ASCII of a sane length, or the request is refused here. */
const REGISTRATION_TOKEN = /^[\x21-\x7e]{1,4096}$/;

/** Opens the link and reads the platform's configuration: what the confirmation page shows. */
export async function startDynamicRegistration(deps: PlatformDeps, request: RegistrationRequest) {
  const link = await openLink(deps, request.token);
  if (!request.openidConfiguration) {
    throw badConfiguration('the platform sent no openid_configuration. Paste this URL into the platform’s tool registration.');
  }
  if (request.registrationToken !== undefined && !REGISTRATION_TOKEN.test(request.registrationToken)) {
    throw badConfiguration('the registration_token the platform sent is not a bearer token.');
  }
  const platform = await readPlatformConfiguration(deps, request.openidConfiguration);
  const account = await findAccount(deps, link.account_id);
  if (!account) throw linkRefused('This registration URL is not valid.');
  return { link, platform, organisation: organisationName(account) };
}

/** The client registration the tool sends (LTI Dynamic Registration 1.0, section 3.5). */
export function toolRegistrationBody(baseUrl: string) {
  const urls = toolUrls(baseUrl);
  return {
    application_type: 'web',
    response_types: ['id_token'],
    grant_types: ['implicit', 'client_credentials'],
    initiate_login_uri: urls.login,
    redirect_uris: [urls.launch],
    client_name: 'voicename',
    jwks_uri: urls.jwks,
    token_endpoint_auth_method: 'private_key_jwt',
    scope: NRPS_SCOPE,
    [TOOL_CONFIGURATION]: {
      domain: new URL(baseUrl).host,
      target_link_uri: urls.launch,
      claims: ['iss', 'sub', 'name', 'given_name', 'family_name', 'email'],
      messages: [
        { type: 'LtiResourceLinkRequest', target_link_uri: urls.launch },
        { type: 'LtiDeepLinkingRequest', target_link_uri: urls.deepLinking, label: 'voicename' },
      ],
    },
  };
}

const refused = (message: string) => new AppError('lti_registration_refused', message);

async function postRegistration(deps: PlatformDeps, platform: PlatformConfiguration, registrationToken: string | undefined) {
  let answer;
  try {
    answer = await sendOutbound({
      url: platform.registrationEndpoint,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(registrationToken ? { authorization: `Bearer ${registrationToken}` } : {}),
      },
      body: JSON.stringify(toolRegistrationBody(deps.config.baseUrl)),
      ...customerBoundRules(deps),
      maxBodyBytes: MAX_CONFIGURATION_BYTES,
      timeoutMs: 15_000,
    });
  } catch (error) {
    const why = error instanceof OutboundError ? error.message : 'the request failed';
    throw refused(`The platform’s registration endpoint did not answer (${why}). Nothing was registered.`);
  }
  if (answer.status !== 200 && answer.status !== 201) {
    throw refused(`The platform refused the registration (status ${answer.status}). Nothing was registered.`);
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.bodySnippet) as Record<string, unknown>;
  } catch {
    throw refused('The platform’s answer to the registration is not JSON. Nothing was registered.');
  }
  const clientId = body?.client_id;
  if (typeof clientId !== 'string' || clientId === '') {
    throw refused('The platform’s answer to the registration has no client id. Nothing was registered.');
  }
  const tool = body[TOOL_CONFIGURATION] as Record<string, unknown> | undefined;
  const deploymentId = typeof tool?.deployment_id === 'string' ? tool.deployment_id : '';
  return { clientId, deploymentId };
}

/**
 * Registers the tool with the platform and stores the registration, using the link up in the
 * same transaction (a refusal on either side leaves the link as it was and stores nothing).
 */
export async function completeDynamicRegistration(
  deps: PlatformDeps,
  request: RegistrationRequest,
  ip: string,
): Promise<{ registration: Registration; platformOrigin: string }> {
  const { link, platform } = await startDynamicRegistration(deps, request);
  const answer = await postRegistration(deps, platform, request.registrationToken);
  const fields = await checkRegistrationInput(
    deps,
    {
      issuer: platform.issuer,
      client_id: answer.clientId,
      deployment_ids: answer.deploymentId,
      auth_url: platform.authorizationEndpoint,
      token_url: platform.tokenEndpoint,
      jwks_url: platform.jwksUri,
    },
    { deploymentsLater: true },
  );
  const now = isoNow(deps.clock);
  const row: RegistrationRow = { id: newId(), account_id: link.account_id, ...fields, created_at: now, updated_at: now };
  try {
    await withTransaction(deps, async (tx) => {
      if (!(await useRegistrationLink(tx.trx, { id: link.id, registrationId: row.id, now }))) {
        throw linkRefused('This registration URL was used or revoked meanwhile. Nothing was registered.');
      }
      await insertRegistration(tx.trx, row);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw registrationTaken();
    throw error;
  }
  await recordAudit(deps, {
    accountId: link.account_id,
    actor: { kind: 'member', email: link.created_by },
    action: 'lti_registration.created',
    objectId: row.id,
    detail: { via: 'dynamic_registration', issuer: row.issuer, client_id: row.client_id },
    ip,
  }).catch((error: unknown) => deps.logger.error({ err: error }, 'audit entry could not be written'));
  return { registration: toRegistration(row), platformOrigin: platform.origin };
}
