/**
 * SCIM Users: organisation-level identities. A User is a person in the collection of every
 * group it belongs to (group-service.ts); changing the User changes those people under the
 * provenance rule, `active: false` suspends them (no record link, no messages) and deleting it
 * deletes them through the person-deletion path (erasure of their traces included).
 */
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../errors.js';
import { laterThan } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { type ProvisionedPerson, removeProvisionedPerson, syncProvisionedPeople } from '../users/integration-service.js';
import { scimNotFound, uniqueness } from './errors.js';
import { pageOf, userFilter } from './filter.js';
import { applyPatch } from './patch.js';
import {
  deleteScimUserRow,
  findScimUser,
  findScimUserByUserName,
  insertScimUser,
  listMembershipsOfUser,
  listScimUserRows,
  type ScimUserRow,
  updateScimUserRow,
} from './repo.js';
import { type Json, LIST_RESPONSE_SCHEMA, metaOf, project, readUser, type UserFields, versionTag } from './resources.js';
import type { ScimCaller } from './token-service.js';

export interface ListQuery {
  filter?: string;
  startIndex?: string;
  count?: string;
  attributes?: string;
  excludedAttributes?: string;
}

export const userResource = (baseUrl: string, row: ScimUserRow): Json => ({
  ...(JSON.parse(row.resource) as Json),
  id: row.id,
  meta: metaOf('User', baseUrl, row),
});

/** The person a User makes in a collection: found again by `external_id` = the User's `id`. */
export function personOf(row: Pick<ScimUserRow, 'id' | 'user_name' | 'active' | 'resource'>): ProvisionedPerson {
  const fields = readUser(JSON.parse(row.resource));
  const email = fields.email ?? (row.user_name.includes('@') ? row.user_name : '');
  const firstName = fields.givenName ?? fields.displayName ?? row.user_name.split('@')[0] ?? row.user_name;
  return {
    externalId: row.id,
    email,
    firstName,
    lastName: fields.familyName ?? '',
    displayName: fields.displayName,
    suspended: row.active === 0,
  };
}

async function requireUser(deps: Deps, caller: ScimCaller, id: string): Promise<ScimUserRow> {
  const row = await findScimUser(deps.db.kysely, caller.accountId, id);
  if (!row) throw scimNotFound('User', id);
  return row;
}

/** `If-Match` (RFC 7644 §3.14): a version other than the current one is a 412. */
function checkVersion(row: { version: number }, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const tags = ifMatch.split(',').map((tag) => tag.trim());
  if (!tags.includes(versionTag(row.version))) {
    throw new AppError('scim_version_mismatch', 'The resource changed since that version was read.');
  }
}

const takenUserName = (userName: string) => uniqueness(`A User with the userName "${userName}" already exists.`);

const columnsOf = (fields: UserFields) => ({
  user_name: fields.userName,
  user_name_key: fields.userName.toLowerCase(),
  external_id: fields.externalId,
  email: fields.email?.toLowerCase() ?? null,
  active: fields.active ? 1 : 0,
  resource: JSON.stringify(fields.resource),
});

export async function createScimUser(deps: Deps, caller: ScimCaller, body: unknown): Promise<Json> {
  const fields = readUser(body);
  const now = deps.clock.now().toISOString();
  const row: ScimUserRow = {
    id: newId(),
    account_id: caller.accountId,
    ...columnsOf(fields),
    version: 1,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertScimUser(deps.db.kysely, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw takenUserName(fields.userName);
    throw error;
  }
  return userResource(deps.config.baseUrl, row);
}

export async function getScimUser(deps: Deps, caller: ScimCaller, id: string, query: ListQuery = {}): Promise<Json> {
  return project(userResource(deps.config.baseUrl, await requireUser(deps, caller, id)), query);
}

export async function listScimUsers(deps: Deps, caller: ScimCaller, query: ListQuery) {
  const condition = userFilter(query.filter);
  const page = pageOf(query);
  const { rows, total } = await listScimUserRows(deps.db.kysely, caller.accountId, condition, page);
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: rows.length,
    Resources: rows.map((row) => project(userResource(deps.config.baseUrl, row), query)),
  };
}

/**
 * Brings the User's people in step with the new representation, then stores it: a person's
 * conflict (another person of a collection has the new e-mail) refuses the change before the
 * User itself has changed. The userName is checked first for the same reason.
 */
async function writeUser(deps: Deps, current: ScimUserRow, fields: UserFields): Promise<Json> {
  const columns = columnsOf(fields);
  const holder = await findScimUserByUserName(deps.db.kysely, current.account_id, columns.user_name_key);
  if (holder && holder.id !== current.id) throw takenUserName(fields.userName);
  const memberships = await listMembershipsOfUser(deps.db.kysely, current.id);
  const people = memberships.map((m) => ({ collectionId: m.collection_id, personId: m.person_id }));
  if (people.length > 0) await syncProvisionedPeople(deps, current.account_id, people, personOf({ ...current, ...columns }));
  try {
    const row = await updateScimUserRow(deps.db.kysely, current.id, {
      ...columns,
      version: current.version + 1,
      updated_at: laterThan(deps.clock, current.updated_at),
    });
    return userResource(deps.config.baseUrl, row);
  } catch (error) {
    if (isUniqueViolation(error)) throw takenUserName(fields.userName);
    throw error;
  }
}

export async function replaceScimUser(
  deps: Deps,
  caller: ScimCaller,
  id: string,
  body: unknown,
  ifMatch?: string,
): Promise<Json> {
  const current = await requireUser(deps, caller, id);
  checkVersion(current, ifMatch);
  return writeUser(deps, current, readUser(body));
}

export async function patchScimUser(deps: Deps, caller: ScimCaller, id: string, body: unknown, ifMatch?: string): Promise<Json> {
  const current = await requireUser(deps, caller, id);
  checkVersion(current, ifMatch);
  const patched = applyPatch(JSON.parse(current.resource) as Json, current.id, body);
  return writeUser(deps, current, readUser(patched));
}

/** Deletes the User and, in every collection it was a person of, that person (recording and traces too). */
export async function deleteScimUser(deps: Deps, caller: ScimCaller, id: string, ifMatch?: string): Promise<void> {
  const current = await requireUser(deps, caller, id);
  checkVersion(current, ifMatch);
  for (const membership of await listMembershipsOfUser(deps.db.kysely, current.id)) {
    await removeProvisionedPerson(deps, caller.accountId, membership.collection_id, membership.person_id);
  }
  await deleteScimUserRow(deps.db.kysely, current.id);
}
