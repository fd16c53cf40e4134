/**
 * Names and Role Provisioning Services (NRPS 2.0): a course's learners become people of its
 * collection. The tool asks the platform's token endpoint for an access token with a client
 * assertion signed by its own key (RFC 7523, the LTI security framework's client credentials
 * grant), reads the memberships page by page through `Link: <…>; rel="next"` (or, between full
 * reads, only the changes at the `rel="differences"` link the platform gave last time), and then:
 * creates or updates the learners (the person's own edits are kept: users/roster-service.ts)
 * and marks the people no longer in the course as departed, replacing their record link so the
 * old one stops working. Every request goes through the SSRF-safe outbound client.
 */
import { SignJWT } from 'jose';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { type HostLookup, sendOutbound } from '../../integrations/outbound-http.js';
import { customerBoundRules } from '../../integrations/customer-bound.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { rotateRecordLink } from '../users/service.js';
import { upsertRosterPeople } from '../users/roster-service.js';
import { launchAudience } from './landing-service.js';
import {
  claimContextSync,
  type ContextRow,
  findContextById,
  findRegistrationById,
  listRoster,
  listSyncableContexts,
  markRosterDeparted,
  updateContext,
  upsertRosterEntry,
} from './repo.js';
import { type Registration, toRegistration } from './registration-service.js';
import { signingKey } from './tool-keys.js';

export const NRPS_SCOPE = 'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly';
export const NRPS_MEDIA_TYPE = 'application/vnd.ims.lti-nrps.v2.membershipcontainer+json';
const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const MAX_PAGE_BYTES = 4 * 1024 * 1024;
const MAX_PAGES = 200;

interface NrpsMember {
  user_id?: unknown;
  status?: unknown;
  name?: unknown;
  given_name?: unknown;
  family_name?: unknown;
  email?: unknown;
  roles?: unknown;
}

/** The deps of a sync, with the outbound client's test seams (production deps never set them). */
type RosterDeps = Deps & {
  /** Resolver override, so a test name resolves to a public-looking address. */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the platform's certificate, instead of the system's. */
  trustedCa?: string;
};

const unavailable = (message: string, cause?: unknown) => new AppError('lti_platform_unavailable', message, { cause });
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** A signed client assertion (RFC 7523) for the platform's token endpoint. */
export async function clientAssertion(deps: Deps, registration: Registration): Promise<string> {
  const key = await signingKey(deps);
  const now = Math.floor(deps.clock.now().getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(registration.clientId)
    .setSubject(registration.clientId)
    .setAudience(registration.tokenUrl)
    .setIssuedAt(now)
    .setExpirationTime(now + 300)
    .setJti(randomToken(16))
    .sign(key.privateKey);
}

async function accessToken(deps: RosterDeps, registration: Registration): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: await clientAssertion(deps, registration),
    scope: NRPS_SCOPE,
  }).toString();
  let response;
  try {
    response = await sendOutbound({
      url: registration.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      ...customerBoundRules(deps),
      maxBodyBytes: 64 * 1024,
    });
  } catch (error) {
    throw unavailable(`The platform's token endpoint could not be reached: ${(error as Error).message}`, error);
  }
  if (response.status !== 200) throw unavailable(`The platform's token endpoint answered ${response.status}.`);
  const token = (JSON.parse(response.bodySnippet) as { access_token?: unknown }).access_token;
  if (typeof token !== 'string' || token === '') throw unavailable('The platform answered no access token.');
  return token;
}

/** The URL of `rel` in a Link header (RFC 8288), or null. */
export function linkUrl(header: string | undefined, rel: string): string | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (!match) continue;
    const rels = /;\s*rel="?([^";]+)"?/i.exec(match[2] as string)?.[1]?.split(/\s+/) ?? [];
    if (rels.includes(rel)) return match[1] as string;
  }
  return null;
}

async function readMembers(
  deps: RosterDeps,
  url: string,
  token: string,
): Promise<{ members: NrpsMember[]; differencesUrl: string | null }> {
  const members: NrpsMember[] = [];
  let differencesUrl: string | null = null;
  let next: string | null = url;
  for (let page = 0; next !== null; page += 1) {
    if (page === MAX_PAGES) throw unavailable(`The course's roster has more than ${MAX_PAGES} pages.`);
    let response;
    try {
      response = await sendOutbound({
        url: next,
        method: 'GET',
        headers: { accept: NRPS_MEDIA_TYPE, authorization: `Bearer ${token}` },
        ...customerBoundRules(deps),
        maxBodyBytes: MAX_PAGE_BYTES,
      });
    } catch (error) {
      throw unavailable(`The course's roster could not be read: ${(error as Error).message}`, error);
    }
    if (response.status !== 200 || response.truncated) throw unavailable(`The course's roster answered ${response.status}.`);
    const container = JSON.parse(response.bodySnippet) as { members?: unknown };
    if (!Array.isArray(container.members)) throw unavailable('The course roster is not a membership container.');
    members.push(...(container.members as NrpsMember[]));
    next = linkUrl(response.headers.link, 'next');
    differencesUrl = linkUrl(response.headers.link, 'differences') ?? differencesUrl;
  }
  return { members, differencesUrl };
}

const userIdOf = (member: NrpsMember): string | null =>
  typeof member.user_id === 'string' && member.user_id !== '' ? member.user_id : null;

const isLearner = (member: NrpsMember): boolean =>
  Array.isArray(member.roles) &&
  launchAudience(member.roles.filter((role): role is string => typeof role === 'string')) === 'learner';

export interface RosterSyncResult {
  created: number;
  updated: number;
  departed: number;
}

/** Between two reads of the whole roster, only the platform's differences are read. */
const FULL_READ_EVERY_MS = 24 * 60 * 60_000;

/**
 * Syncs one course's learners into its collection (see the module comment). When the platform
 * gave a `differences` link and the whole roster was read in the last day, only the changes are
 * read: members listed as Deleted or Inactive depart, the others are created or updated, and
 * nobody else is touched. Otherwise the whole roster is read and everyone not in it departs.
 */
export async function syncCourseRoster(deps: RosterDeps, contextRowId: string): Promise<RosterSyncResult> {
  const course = await findContextById(deps.db.kysely, contextRowId);
  if (!course || course.memberships_url === null) return { created: 0, updated: 0, departed: 0 };
  const registrationRow = await findRegistrationById(deps.db.kysely, course.registration_id);
  if (!registrationRow) return { created: 0, updated: 0, departed: 0 };
  const registration = toRegistration(registrationRow);
  const started = deps.clock.now();
  const full =
    course.differences_url === null ||
    course.full_synced_at === null ||
    started.getTime() - Date.parse(course.full_synced_at) >= FULL_READ_EVERY_MS;
  const token = await accessToken(deps, registration);
  const read = await readMembers(deps, full ? course.memberships_url : (course.differences_url as string), token);
  const active = read.members.filter(
    (member) => userIdOf(member) !== null && (member.status === undefined || member.status === 'Active') && isLearner(member),
  );
  const { people, created, updated } = await upsertRosterPeople(
    deps,
    registration.accountId,
    course.collection_id,
    active.map((member) => ({
      externalId: member.user_id as string,
      givenName: text(member.given_name) || text(member.name),
      familyName: text(member.family_name),
      email: text(member.email) || null,
    })),
  );
  const now = isoNow(deps.clock);
  for (const person of people) {
    await upsertRosterEntry(deps.db.kysely, {
      user_id: person.userId,
      context_row_id: course.id,
      lti_user_id: person.externalId,
      departed_at: null,
      synced_at: now,
    });
  }
  const present = new Set(people.map((person) => person.userId));
  const leaving = new Set(
    read.members
      .filter((member) => member.status === 'Deleted' || member.status === 'Inactive')
      .map((member) => userIdOf(member)),
  );
  const departed = (await listRoster(deps.db.kysely, course.id)).filter(
    (entry) => entry.departed_at === null && !present.has(entry.user_id) && (full || leaving.has(entry.lti_user_id)),
  );
  await markRosterDeparted(
    deps.db.kysely,
    departed.map((entry) => entry.user_id),
    now,
  );
  // The old record link stops working; a launch from the course brings the person back.
  for (const entry of departed) await rotateRecordLink(deps, registration.accountId, course.collection_id, entry.user_id);
  await updateContext(deps.db.kysely, course.id, {
    synced_at: now,
    differences_url: read.differencesUrl,
    full_synced_at: full ? started.toISOString() : course.full_synced_at,
  });
  return { created, updated, departed: departed.length };
}

/**
 * The schedule's pass: every course with a roster service is synced (each failure logged, the
 * others still run). Every worker process runs the schedule: a course synced within the last
 * `minimumGapMs` (by any process) is left alone, and each course is claimed before it is read, so
 * processes whose passes meet sync it once.
 */
export async function syncAllRosters(deps: Deps, minimumGapMs: number): Promise<void> {
  const courses: ContextRow[] = await listSyncableContexts(deps.db.kysely);
  for (const course of courses) {
    const now = deps.clock.now();
    if (course.synced_at !== null && now.getTime() - Date.parse(course.synced_at) < minimumGapMs) continue;
    if (!(await claimContextSync(deps.db.kysely, course.id, course.synced_at, now.toISOString()))) continue;
    try {
      await syncCourseRoster(deps, course.id);
    } catch (error) {
      deps.logger.warn({ err: error, course: course.id }, 'LTI roster sync failed');
    }
  }
}
