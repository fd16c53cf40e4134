/**
 * LTI Deep Linking 2.0: an instructor inserting voicename into a course page or assignment. The
 * launch (LtiDeepLinkingRequest) shows a picker: the course's name roster (a resource link back to
 * the tool, so each reader lands where they belong) or one recorded person's player (a link to
 * their play page). The choice goes back as an LtiDeepLinkingResponse JWT signed with the tool's
 * key, posted by the browser to the platform's `deep_link_return_url`.
 *
 * Between the two steps nothing is stored: the request (platform, deployment, return URL, the
 * platform's `data`, the course) travels in the picker form sealed with AES-256-GCM under a key
 * derived from the entity signing key, for 30 minutes, so it cannot be altered or reused later.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { randomToken } from '../../lib/ids.js';
import { batchPlayLinks } from '../play-links/service.js';
import { CLAIM, DEEP_LINKING_CLAIM, type Launch, launchUrl } from './launch-service.js';
import { findRegistrationById, listRoster } from './repo.js';
import { toRegistration } from './registration-service.js';
import { signingKey } from './tool-keys.js';

const SEALING_INFO = 'voicename lti deep linking';
const REQUEST_TTL_MS = 30 * 60_000;
const MAX_PEOPLE = 100;

export interface DeepLinkRequest {
  registrationId: string;
  deploymentId: string;
  returnUrl: string;
  data: string | null;
  accountId: string;
  collectionId: string;
  contextRowId: string;
  courseTitle: string;
  expiresAt: number;
}

const expired = () =>
  new AppError('lti_launch_invalid', 'This choice has expired or was not made here. Start again from the course’s editor.');

export function sealDeepLinkRequest(
  deps: Deps,
  launch: Launch,
  course: { id: string; collectionId: string; title: string },
): string {
  if (!launch.deepLinking) throw new Error('not a deep linking launch');
  const request: DeepLinkRequest = {
    registrationId: launch.registration.id,
    deploymentId: launch.deploymentId,
    returnUrl: launch.deepLinking.returnUrl,
    data: launch.deepLinking.data,
    accountId: launch.registration.accountId,
    collectionId: course.collectionId,
    contextRowId: course.id,
    courseTitle: course.title,
    expiresAt: deps.clock.now().getTime() + REQUEST_TTL_MS,
  };
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deps.agentApi.keys.derivedKey(SEALING_INFO), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(request)), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

export function openDeepLinkRequest(deps: Deps, sealed: string | undefined): DeepLinkRequest {
  const parts = (sealed ?? '').split('.');
  if (parts.length !== 3) throw expired();
  try {
    const [iv, tag, body] = parts.map((part) => Buffer.from(part, 'base64url')) as [Buffer, Buffer, Buffer];
    const decipher = createDecipheriv('aes-256-gcm', deps.agentApi.keys.derivedKey(SEALING_INFO), iv);
    decipher.setAuthTag(tag);
    const request = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as DeepLinkRequest;
    if (request.expiresAt <= deps.clock.now().getTime()) throw expired();
    return request;
  } catch {
    throw expired();
  }
}

export interface DeepLinkPerson {
  userId: string;
  displayName: string;
  playUrl: string;
}

/** The people of the course who have a player to insert (recorded), by name, at most 100. */
export async function deepLinkPeople(deps: Deps, request: DeepLinkRequest): Promise<DeepLinkPerson[]> {
  const roster = (await listRoster(deps.db.kysely, request.contextRowId)).filter((entry) => entry.departed_at === null);
  const people: DeepLinkPerson[] = [];
  for (let i = 0; i < roster.length && people.length < MAX_PEOPLE; i += 100) {
    const ids = roster.slice(i, i + 100).map((entry) => entry.user_id);
    const { data } = await batchPlayLinks(deps, request.accountId, {
      collection_id: request.collectionId,
      user_ids: ids.join(','),
    });
    for (const item of data) {
      if (item.play_link) people.push({ userId: item.user_id, displayName: item.display_name, playUrl: item.play_link });
    }
  }
  return people.slice(0, MAX_PEOPLE).sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** The signed LtiDeepLinkingResponse for `choice` (`roster`, or a person's id): the JWT and where the browser posts it. */
export async function deepLinkResponse(
  deps: Deps,
  request: DeepLinkRequest,
  choice: string | undefined,
): Promise<{ returnUrl: string; jwt: string }> {
  const registrationRow = await findRegistrationById(deps.db.kysely, request.registrationId);
  if (!registrationRow) throw expired();
  const registration = toRegistration(registrationRow);
  let item: Record<string, unknown>;
  if (choice === 'roster') {
    item = { type: 'ltiResourceLink', title: `Names: ${request.courseTitle}`, url: launchUrl(deps.config.baseUrl) };
  } else {
    const person = (await deepLinkPeople(deps, request)).find((candidate) => candidate.userId === choice);
    if (!person)
      throw new AppError('parameter_invalid', 'Choose the roster or a person who has recorded their name.', { param: 'choice' });
    item = { type: 'link', title: `How to say ${person.displayName}`, url: person.playUrl };
  }
  const key = await signingKey(deps);
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  const claims: Record<string, unknown> = {
    nonce: randomToken(16),
    [`${CLAIM}message_type`]: 'LtiDeepLinkingResponse',
    [`${CLAIM}version`]: '1.3.0',
    [`${CLAIM}deployment_id`]: request.deploymentId,
    [`${DEEP_LINKING_CLAIM}content_items`]: [item],
  };
  if (request.data !== null) claims[`${DEEP_LINKING_CLAIM}data`] = request.data;
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(registration.clientId)
    .setAudience(registration.issuer)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .sign(key.privateKey);
  return { returnUrl: request.returnUrl, jwt };
}
