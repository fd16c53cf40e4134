/**
 * Where a validated launch lands. Staff (instructors, administrators, content developers,
 * teaching assistants) are signed in to the dashboard as members of the registration's
 * organisation (admins when they join; a member keeps the role they have) and land on the
 * course's collection, made on the course's first launch. Learners become people of that
 * collection, linked by their LTI user id, and land on their own record page; nobody is mailed.
 */
import type { Deps } from '../../deps.js';
import { withTransaction } from '../../db/transaction.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../errors.js';
import { enqueue } from '../../jobs/queue.js';
import { isoNow } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { addMemberJustInTime } from '../accounts/members-service.js';
import { type Account, findAccount } from '../accounts/service.js';
import { recordAudit } from '../audit/service.js';
import { createCollection } from '../collections/service.js';
import { signInVouchedFor } from '../dashboard/service.js';
import { upsertRosterPeople } from '../users/roster-service.js';
import { type DeepLinkPerson, deepLinkPeople, openDeepLinkRequest, sealDeepLinkRequest } from './deep-linking.js';
import { mergeFrameOrigins } from './framing.js';
import type { Launch } from './launch-service.js';
import { type ContextRow, findContext, insertContext, updateContext, upsertRosterEntry } from './repo.js';
import { rosterSyncJob } from './sync-job.js';

const LIS = 'http://purl.imsglobal.org/vocab/lis/v2/';
const STAFF_ROLES = [
  `${LIS}membership#Instructor`,
  `${LIS}membership#Administrator`,
  `${LIS}membership#ContentDeveloper`,
  `${LIS}membership/Instructor#TeachingAssistant`,
  `${LIS}institution/person#Administrator`,
  `${LIS}institution/person#Faculty`,
  `${LIS}system/person#Administrator`,
];
const LEARNER_ROLES = [`${LIS}membership#Learner`, `${LIS}institution/person#Student`];

/** `staff` for teaching and administrative roles, `learner` for learners, null for roles voicename has no place for. */
export function launchAudience(roles: string[]): 'staff' | 'learner' | null {
  // LTI 1.3 also allows the short names of context roles ("Instructor", "Learner").
  const has = (full: string[]) => roles.some((role) => full.includes(role) || full.some((f) => f.endsWith(`#${role}`)));
  if (has(STAFF_ROLES)) return 'staff';
  if (has(LEARNER_ROLES)) return 'learner';
  return null;
}

export type Landing =
  | { kind: 'staff'; sessionId: string; expiresAt: string; collectionId: string; account: Account }
  | { kind: 'learner'; recordToken: string }
  | { kind: 'deep_linking'; sealedRequest: string; people: DeepLinkPerson[]; courseTitle: string; returnOrigin: string };

function courseName(title: string): string {
  const name = title.trim().slice(0, 255);
  return name === '' ? 'Course' : name;
}

/** The course's row, making its collection on the first launch; keeps the NRPS URL up to date. */
export async function courseOf(deps: Deps, launch: Launch): Promise<ContextRow> {
  const { registration } = launch;
  const found = await findContext(deps.db.kysely, registration.id, launch.context.id);
  if (found) {
    const frameOrigins = mergeFrameOrigins(found.frame_origins, launch.frameOrigins);
    if (found.memberships_url !== launch.membershipsUrl || found.deployment_id !== launch.deploymentId || frameOrigins !== null) {
      await updateContext(deps.db.kysely, found.id, {
        memberships_url: launch.membershipsUrl,
        deployment_id: launch.deploymentId,
        ...(frameOrigins === null ? {} : { frame_origins: frameOrigins }),
      });
    }
    return {
      ...found,
      memberships_url: launch.membershipsUrl,
      deployment_id: launch.deploymentId,
      frame_origins: frameOrigins ?? found.frame_origins,
    };
  }
  const collection = await createCollection(deps, registration.accountId, { name: courseName(launch.context.title) });
  const row: ContextRow = {
    id: newId(),
    registration_id: registration.id,
    context_id: launch.context.id,
    collection_id: collection.id,
    title: launch.context.title.slice(0, 255),
    memberships_url: launch.membershipsUrl,
    deployment_id: launch.deploymentId,
    differences_url: null,
    synced_at: null,
    full_synced_at: null,
    frame_origins: mergeFrameOrigins(null, launch.frameOrigins),
    created_at: isoNow(deps.clock),
  };
  try {
    await insertContext(deps.db.kysely, row);
    return row;
  } catch (error) {
    // Two first launches of one course at once: the other one's collection is the course's.
    if (!isUniqueViolation(error)) throw error;
    const winner = await findContext(deps.db.kysely, registration.id, launch.context.id);
    if (!winner) throw error;
    return winner;
  }
}

/** Queues the course's roster sync (when the platform offers NRPS). */
export async function queueRosterSync(deps: Deps, course: ContextRow): Promise<void> {
  if (course.memberships_url === null) return;
  await withTransaction(deps, (tx) => enqueue(tx, rosterSyncJob, { context_row_id: course.id }));
}

export async function landLaunch(
  deps: Deps,
  launch: Launch,
  request: { userAgent: string | undefined; ip: string },
): Promise<Landing> {
  const audience = launchAudience(launch.roles);
  if (audience === null) {
    throw new AppError(
      'lti_claims_invalid',
      'voicename is for instructors and learners of a course; your role in this course is neither.',
    );
  }
  const account = await findAccount(deps, launch.registration.accountId);
  if (!account) throw new AppError('lti_launch_invalid', 'This platform is no longer registered with voicename.');
  const course = await courseOf(deps, launch);
  if (audience === 'staff') {
    if (launch.email === null) {
      throw new AppError(
        'lti_claims_invalid',
        'The platform did not share your e-mail address, which voicename needs to sign instructors in. Ask the platform administrator to share it with the tool.',
      );
    }
    const email = launch.email.trim().toLowerCase();
    const joined = await addMemberJustInTime(deps, {
      accountId: account.id,
      email,
      role: 'admin',
      via: `LTI launch (${launch.registration.issuer})`,
    });
    if (joined) {
      await recordAudit(deps, {
        accountId: account.id,
        actor: { kind: 'member', email },
        action: 'member.joined',
        objectId: email,
        detail: { via: 'lti', issuer: launch.registration.issuer, role: 'admin' },
        ip: request.ip,
      });
    }
    await queueRosterSync(deps, course);
    if (launch.messageType === 'LtiDeepLinkingRequest') {
      const sealedRequest = sealDeepLinkRequest(deps, launch, {
        id: course.id,
        collectionId: course.collection_id,
        title: course.title,
      });
      const request = openDeepLinkRequest(deps, sealedRequest);
      const people = await deepLinkPeople(deps, request);
      return {
        kind: 'deep_linking',
        sealedRequest,
        people,
        courseTitle: course.title,
        returnOrigin: new URL(request.returnUrl).origin,
      };
    }
    const session = await signInVouchedFor(deps, { email, account, userAgent: request.userAgent });
    return { kind: 'staff', ...session, collectionId: course.collection_id, account };
  }
  if (launch.messageType === 'LtiDeepLinkingRequest') {
    throw new AppError('lti_claims_invalid', 'Only instructors insert voicename into a course.');
  }
  const { people } = await upsertRosterPeople(deps, account.id, course.collection_id, [
    { externalId: launch.userId, givenName: launch.givenName || launch.name, familyName: launch.familyName, email: launch.email },
  ]);
  const person = people[0];
  if (!person) {
    throw new AppError(
      'lti_claims_invalid',
      'Your e-mail address belongs to another person of this course’s collection. Ask your instructor to check the collection.',
    );
  }
  await upsertRosterEntry(deps.db.kysely, {
    user_id: person.userId,
    context_row_id: course.id,
    lti_user_id: launch.userId,
    departed_at: null,
    synced_at: isoNow(deps.clock),
  });
  return { kind: 'learner', recordToken: person.recordToken };
}
