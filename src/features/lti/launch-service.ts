/**
 * LTI 1.3 login initiation and launch (IMS Security Framework 1.0 §5.1.1, LTI Core 1.3 §5).
 *
 * Login: the platform sends the browser to `/lti/login` with its issuer, a login hint and the
 * target; we answer with a redirect to the platform's OIDC auth URL carrying a fresh `state`
 * (also set in a cookie: the state is bound to this browser) and `nonce` (stored, single use).
 *
 * Launch: the platform posts an id_token and the state back to `/lti/launch`. The state must be
 * the browser's; the token must be signed by a key in the platform's key set (RS256), issued by
 * the registered issuer for our client id (`aud`; `azp` when there are several audiences), be
 * within its times, and carry a nonce we issued for this state and nobody used yet. Then the LTI
 * claims: message type, version 1.3.0, a registered deployment, and roles.
 */
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, type JWTPayload, jwtVerify } from 'jose';
import type { TransactionDeps } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { PlatformKeySets } from './platform-keys.js';
import {
  deleteOldLaunchNonces,
  findLoginByState,
  findRegistrationById,
  findRegistrationsOfIssuer,
  insertLaunchNonce,
  useLaunchNonce,
} from './repo.js';
import { type Registration, toRegistration } from './registration-service.js';

export type LaunchDeps = TransactionDeps & { config: { baseUrl: string }; ltiKeySets: PlatformKeySets };

export const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';
export const DEEP_LINKING_CLAIM = 'https://purl.imsglobal.org/spec/lti-dl/claim/';
export const NRPS_CLAIM = 'https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice';
export const MESSAGE_TYPES = ['LtiResourceLinkRequest', 'LtiDeepLinkingRequest'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

/** A login must come back as a launch within this time. */
const LOGIN_TTL_MS = 10 * 60_000;
/** Allowed clock difference with the platform. */
const CLOCK_TOLERANCE_S = 60;
/** An id_token issued longer ago than this is refused, whatever its `exp`. */
const MAX_TOKEN_AGE_S = 10 * 60;

export interface LoginRequest {
  iss?: string;
  login_hint?: string;
  target_link_uri?: string;
  lti_message_hint?: string;
  client_id?: string;
  lti_deployment_id?: string;
  /**
   * The platform offers its storage (LTI Client Side postMessages): the name of the frame that
   * answers, or `_parent`. The login then also stores the state there, for browsers that withhold
   * the state cookie in the platform's frame (see platform-storage.ts).
   */
  lti_storage_target?: string;
}

/** A frame name as platforms send it (Canvas `post_message_forwarding`, or `_parent`). */
const STORAGE_TARGET = /^[A-Za-z0-9_.-]{1,100}$/;

const loginInvalid = (message: string) => new AppError('lti_login_invalid', message);
const launchInvalid = (message: string, cause?: unknown) => new AppError('lti_launch_invalid', message, { cause });
const claimsInvalid = (message: string) => new AppError('lti_claims_invalid', message);

/** The tool's launch URL: the redirect URI registered with every platform. */
export const launchUrl = (baseUrl: string) => `${baseUrl}/lti/launch`;

/**
 * Starts a launch: checks who is asking, stores a nonce bound to a new state and answers where
 * to send the browser (the platform's auth URL) and the state for the browser's cookie.
 */
export async function initiateLogin(
  deps: LaunchDeps,
  input: LoginRequest,
): Promise<{ redirectUrl: string; state: string; nonce: string; platformOrigin: string }> {
  if (input.lti_storage_target !== undefined && !STORAGE_TARGET.test(input.lti_storage_target)) {
    throw loginInvalid('The platform named a storage frame voicename cannot address (lti_storage_target).');
  }
  for (const field of ['iss', 'login_hint', 'target_link_uri'] as const) {
    if (!input[field]) throw loginInvalid(`The platform did not send "${field}", which an LTI 1.3 login needs.`);
  }
  const candidates = (await findRegistrationsOfIssuer(deps.db.kysely, input.iss as string)).map(toRegistration);
  const matching = input.client_id ? candidates.filter((r) => r.clientId === input.client_id) : candidates;
  if (matching.length === 0) {
    throw loginInvalid(
      'This platform is not registered with voicename. An organisation administrator registers it in the dashboard.',
    );
  }
  if (matching.length > 1) throw loginInvalid('The platform sent no client id, and several registrations share its issuer.');
  const registration = matching[0] as Registration;
  if (input.lti_deployment_id !== undefined && !registration.deploymentIds.includes(input.lti_deployment_id)) {
    throw loginInvalid(
      'This deployment of the tool is not registered. Add its deployment id to the registration in the dashboard.',
    );
  }
  let target: URL;
  try {
    target = new URL(input.target_link_uri as string);
  } catch {
    throw loginInvalid('The target link is not a URL.');
  }
  if (target.origin !== new URL(deps.config.baseUrl).origin) throw loginInvalid('The target link is not a voicename address.');

  const state = randomToken(32);
  const nonce = randomToken(32);
  const now = deps.clock.now();
  await insertLaunchNonce(deps.db.kysely, {
    nonce,
    state_hash: sha256Hex(state),
    login_query: new URLSearchParams(
      Object.entries(input).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    ).toString(),
    registration_id: registration.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + LOGIN_TTL_MS).toISOString(),
  });
  const redirect = new URL(registration.authUrl);
  const params: Record<string, string> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: registration.clientId,
    redirect_uri: launchUrl(deps.config.baseUrl),
    login_hint: input.login_hint as string,
    state,
    nonce,
  };
  if (input.lti_message_hint !== undefined) params.lti_message_hint = input.lti_message_hint;
  for (const [name, value] of Object.entries(params)) redirect.searchParams.set(name, value);
  return { redirectUrl: redirect.toString(), state, nonce, platformOrigin: redirect.origin };
}

export interface LaunchContext {
  id: string;
  title: string;
}

/** A validated launch: who, from which platform and course, as what, and what they asked for. */
export interface Launch {
  registration: Registration;
  messageType: MessageType;
  deploymentId: string;
  /** The LTI user id (`sub`). */
  userId: string;
  email: string | null;
  givenName: string;
  familyName: string;
  name: string;
  roles: string[];
  context: LaunchContext;
  /** NRPS memberships URL, when the platform offers the service. */
  membershipsUrl: string | null;
  /** Deep Linking: where to post the response, and the platform's opaque data to return. */
  deepLinking: { returnUrl: string; data: string | null; acceptMultiple: boolean } | null;
  /**
   * The sites the launch came from (`launch_presentation.return_url`, the deep linking return URL;
   * the route adds the launch post's Origin): the platform's pages that show the tool in a frame.
   */
  frameOrigins: string[];
}

const safeUrl = (value: string): URL | null => {
  try {
    return new URL(value);
  } catch {
    return null;
  }
};

/** The origin of an http(s) URL, or null: what a `frame-ancestors` source may name. */
export function webOrigin(value: string | null | undefined): string | null {
  const url = safeUrl(value ?? '');
  return url !== null && (url.protocol === 'https:' || url.protocol === 'http:') ? url.origin : null;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

function registrationFor(candidates: Registration[], payload: JWTPayload): Registration {
  const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
  const azp = str(payload.azp);
  const found = candidates.find((r) => audiences.includes(r.clientId) && (azp === null || azp === r.clientId));
  if (!found) throw launchInvalid('This launch is not addressed to a client id registered with voicename (wrong audience).');
  if (audiences.length > 1 && azp !== found.clientId) {
    throw launchInvalid('This launch names several audiences without naming voicename as the authorised party (azp).');
  }
  return found;
}

async function verifyToken(deps: LaunchDeps, idToken: string): Promise<{ payload: JWTPayload; registration: Registration }> {
  let unverified: JWTPayload;
  let kid: string | undefined;
  try {
    unverified = decodeJwt(idToken);
    kid = decodeProtectedHeader(idToken).kid;
  } catch (error) {
    throw launchInvalid('The launch did not carry a readable id_token.', error);
  }
  const issuer = str(unverified.iss);
  if (issuer === null) throw launchInvalid('The id_token names no issuer.');
  const candidates = (await findRegistrationsOfIssuer(deps.db.kysely, issuer)).map(toRegistration);
  if (candidates.length === 0) throw launchInvalid('This platform is not registered with voicename.');
  const registration = registrationFor(candidates, unverified);
  const keys = await deps.ltiKeySets.get(registration.jwksUrl, kid);
  try {
    const { payload } = await jwtVerify(idToken, keys, {
      algorithms: ['RS256'],
      issuer: registration.issuer,
      audience: registration.clientId,
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_TOKEN_AGE_S,
      currentDate: deps.clock.now(),
      requiredClaims: ['exp', 'iat', 'nonce', 'sub'],
    });
    return { payload, registration };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired)
      throw launchInvalid('The launch has expired. Open the tool again from the course.', error);
    if (error instanceof joseErrors.JWTClaimValidationFailed) {
      throw launchInvalid(`The launch's id_token was refused: ${error.claim} ${error.reason}.`, error);
    }
    if (error instanceof joseErrors.JOSEError) {
      throw launchInvalid('The launch is not signed by a key of the registered platform.', error);
    }
    throw error;
  }
}

function checkClaims(payload: JWTPayload, registration: Registration): Omit<Launch, 'registration'> {
  const claim = (name: string) => payload[`${CLAIM}${name}`];
  const messageType = claim('message_type');
  if (!MESSAGE_TYPES.includes(messageType as MessageType)) {
    throw claimsInvalid(`voicename accepts resource link and deep linking launches, not "${String(messageType)}".`);
  }
  if (claim('version') !== '1.3.0') throw claimsInvalid('The launch is not LTI version 1.3.0.');
  const deploymentId = str(claim('deployment_id'));
  if (deploymentId === null || !registration.deploymentIds.includes(deploymentId)) {
    throw claimsInvalid(
      'This deployment of the tool is not registered. Add its deployment id to the registration in the dashboard.',
    );
  }
  const roles = claim('roles');
  if (!Array.isArray(roles) || roles.length === 0 || !roles.every((role) => typeof role === 'string')) {
    throw claimsInvalid('The launch names no role, so voicename cannot tell an instructor from a learner.');
  }
  const context = claim('context') as { id?: unknown; title?: unknown; label?: unknown } | undefined;
  const contextId = str(context?.id);
  if (contextId === null) throw claimsInvalid('The launch names no course (context), so voicename cannot find its collection.');
  if (messageType === 'LtiResourceLinkRequest' && str((claim('resource_link') as { id?: unknown } | undefined)?.id) === null) {
    throw claimsInvalid('The launch names no resource link.');
  }
  const settings = payload[`${DEEP_LINKING_CLAIM}deep_linking_settings`] as
    { deep_link_return_url?: unknown; data?: unknown; accept_multiple?: unknown } | undefined;
  const returnUrl = str(settings?.deep_link_return_url);
  if (messageType === 'LtiDeepLinkingRequest' && !/^https?:$/.test(safeUrl(returnUrl ?? '')?.protocol ?? '')) {
    throw claimsInvalid('The deep linking request names no return URL voicename can send the choice to.');
  }
  const nrps = payload[NRPS_CLAIM] as { context_memberships_url?: unknown } | undefined;
  const presentation = claim('launch_presentation') as { return_url?: unknown } | undefined;
  const frameOrigins = [webOrigin(str(presentation?.return_url)), webOrigin(returnUrl)].filter(
    (origin): origin is string => origin !== null,
  );
  const given = str(payload.given_name) ?? '';
  const family = str(payload.family_name) ?? '';
  return {
    messageType: messageType as MessageType,
    deploymentId,
    userId: payload.sub as string,
    email: str(payload.email),
    givenName: given,
    familyName: family,
    name: str(payload.name) ?? [given, family].filter(Boolean).join(' '),
    roles: roles,
    context: { id: contextId, title: str(context?.title) ?? str(context?.label) ?? contextId },
    membershipsUrl: str(nrps?.context_memberships_url),
    deepLinking:
      returnUrl === null ? null : { returnUrl, data: str(settings?.data), acceptMultiple: settings?.accept_multiple === true },
    frameOrigins: [...new Set(frameOrigins)],
  };
}

/**
 * The platform's storage of a login that asked for it (`lti_storage_target`): the frame to ask
 * and the origin that must answer (the platform's OIDC auth URL's); null for any other login.
 */
export async function storageLoginOf(
  deps: LaunchDeps,
  state: string,
): Promise<{ storageTarget: string; platformOrigin: string } | null> {
  const login = await findLoginByState(deps.db.kysely, sha256Hex(state), isoNow(deps.clock));
  const storageTarget = login === null ? null : new URLSearchParams(login.login_query).get('lti_storage_target');
  if (login === null || storageTarget === null) return null;
  const registration = await findRegistrationById(deps.db.kysely, login.registration_id);
  return registration ? { storageTarget, platformOrigin: new URL(registration.auth_url).origin } : null;
}

/**
 * Validates a launch (see the module comment). `browserState` is the state cookie of the browser
 * posting it, or `'platform-storage'` when the caller has the browser prove its state through the
 * platform's storage instead (storageLoginOf, platform-storage.ts). Refusals are AppErrors with a message for the
 * person who launched.
 */
export async function validateLaunch(
  deps: LaunchDeps,
  input: { idToken: string | undefined; state: string | undefined; browserState: string | 'platform-storage' | null },
): Promise<Launch> {
  if (!input.idToken || !input.state) throw launchInvalid('The platform did not post an id_token and a state.');
  if (input.browserState === null) {
    // No state cookie at all: typically a browser that keeps cookies from sites in frames (the
    // platform shows the tool in one). Starting again in a window of its own works: say how.
    const login = await findLoginByState(deps.db.kysely, sha256Hex(input.state), isoNow(deps.clock));
    throw new AppError(
      'lti_launch_state',
      'Your browser did not send voicename’s cookie for this launch, which happens when voicename is shown inside the course’s page. Open it in a window of its own.',
      login === null ? {} : { details: { newWindowUrl: `/lti/login?${login.login_query}` } },
    );
  }
  if (input.browserState !== 'platform-storage' && !safeEqual(input.state, input.browserState)) {
    throw new AppError(
      'lti_launch_state',
      'This launch did not start in this browser (its state does not match). Open the tool again from the course.',
    );
  }
  const { payload, registration } = await verifyToken(deps, input.idToken);
  const claims = checkClaims(payload, registration);
  const used = await useLaunchNonce(deps.db.kysely, {
    nonce: String(payload.nonce),
    stateHash: sha256Hex(input.state),
    registrationId: registration.id,
    now: isoNow(deps.clock),
  });
  if (!used) {
    throw new AppError(
      'lti_launch_replayed',
      'This launch was already used, or was not started here. Open the tool again from the course.',
    );
  }
  return { registration, ...claims };
}

/** Periodic clean-up: nonces of logins that expired a day ago (used or not). */
export const deleteOldLaunchNoncesNow = async (deps: TransactionDeps): Promise<void> =>
  void (await deleteOldLaunchNonces(deps.db.kysely, new Date(deps.clock.now().getTime() - 24 * 60 * 60_000).toISOString()));
