/**
 * SCIM Groups: a Group is a collection. Creating one creates the collection (named by
 * `displayName`), renaming it renames the collection, and its `members` are the people of the
 * collection: adding a User creates (or links, by `external_id` = the User's id, else by e-mail)
 * its person there; removing a member deletes that person (the person-deletion path, erasure of
 * their traces included). Deleting the Group archives the collection: its people stop working at
 * once and the archive's retention window erases it.
 */
import type { Deps } from '../../deps.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../errors.js';
import { laterThan } from '../../lib/clock.js';
import { newId } from '../../lib/ids.js';
import { archiveCollection, createCollection, updateCollection } from '../collections/service.js';
import { provisionPerson, removeProvisionedPerson } from '../users/integration-service.js';
import { invalidValue, scimNotFound, uniqueness } from './errors.js';
import { groupFilter, pageOf } from './filter.js';
import { applyPatch } from './patch.js';
import {
  deleteGroupMember,
  deleteScimGroupRow,
  findScimGroup,
  findScimGroupByName,
  findScimUsersByIds,
  insertGroupMember,
  insertScimGroup,
  listGroupMembers,
  listScimGroupRows,
  type ScimGroupRow,
  updateScimGroupRow,
} from './repo.js';
import { GROUP_SCHEMA, type GroupFields, type Json, LIST_RESPONSE_SCHEMA, metaOf, project, readGroup } from './resources.js';
import type { ScimCaller } from './token-service.js';
import { type ListQuery, personOf } from './user-service.js';

/** The most members one request may set (a larger directory group is sent in several PATCHes). */
const MAX_MEMBERS_PER_REQUEST = 1000;

type Member = Awaited<ReturnType<typeof listGroupMembers>>[number];

function groupResource(baseUrl: string, row: ScimGroupRow, members: Member[]): Json {
  return {
    schemas: [GROUP_SCHEMA],
    id: row.id,
    ...(row.external_id === null ? {} : { externalId: row.external_id }),
    displayName: row.display_name,
    members: members.map((m) => ({
      value: m.scim_user_id,
      display: m.user_name,
      type: 'User',
      $ref: `${baseUrl}/scim/v2/Users/${m.scim_user_id}`,
    })),
    meta: metaOf('Group', baseUrl, row),
  };
}

const wantsMembers = (query: ListQuery) => {
  const projected = project({ members: true }, query);
  return 'members' in projected;
};

async function requireGroup(deps: Deps, caller: ScimCaller, id: string): Promise<ScimGroupRow> {
  const row = await findScimGroup(deps.db.kysely, caller.accountId, id);
  if (!row) throw scimNotFound('Group', id);
  return row;
}

const takenName = (name: string) => uniqueness(`A Group with the displayName "${name}" already exists.`);

async function present(deps: Deps, row: ScimGroupRow, query: ListQuery = {}): Promise<Json> {
  const members = wantsMembers(query) ? await listGroupMembers(deps.db.kysely, [row.id]) : [];
  const resource = groupResource(deps.config.baseUrl, row, members);
  return project(resource, query);
}

/** Makes the group's members exactly `memberIds`: people created or linked for new ones, deleted for gone ones. */
async function setMembers(deps: Deps, caller: ScimCaller, group: ScimGroupRow, memberIds: string[]): Promise<void> {
  if (memberIds.length > MAX_MEMBERS_PER_REQUEST) {
    throw invalidValue(`At most ${MAX_MEMBERS_PER_REQUEST} members per request; send the rest in further PATCH requests.`);
  }
  const users = await findScimUsersByIds(deps.db.kysely, caller.accountId, memberIds);
  const unknown = memberIds.filter((id) => !users.some((user) => user.id === id));
  if (unknown.length > 0) throw invalidValue(`No User with the id "${unknown[0]}" in this organisation.`);
  const current = await listGroupMembers(deps.db.kysely, [group.id]);
  const wanted = new Set(memberIds);
  for (const member of current) {
    if (wanted.has(member.scim_user_id)) continue;
    await removeProvisionedPerson(deps, caller.accountId, group.collection_id, member.person_id);
    await deleteGroupMember(deps.db.kysely, group.id, member.scim_user_id);
  }
  const had = new Set(current.map((m) => m.scim_user_id));
  for (const user of users) {
    if (had.has(user.id)) continue;
    const personId = await provisionPerson(deps, caller.accountId, group.collection_id, personOf(user));
    try {
      await insertGroupMember(deps.db.kysely, {
        group_id: group.id,
        scim_user_id: user.id,
        person_id: personId,
        created_at: deps.clock.now().toISOString(),
      });
    } catch (error) {
      // A concurrent request (another process) added the same member: the outcome is the one asked for.
      if (!isUniqueViolation(error)) throw error;
    }
  }
}

export async function createScimGroup(deps: Deps, caller: ScimCaller, body: unknown): Promise<Json> {
  const fields = readGroup(body);
  if (await findScimGroupByName(deps.db.kysely, caller.accountId, fields.displayName.toLowerCase()))
    throw takenName(fields.displayName);
  const collection = await createCollection(deps, caller.accountId, { name: fields.displayName });
  const now = deps.clock.now().toISOString();
  const row: ScimGroupRow = {
    id: newId(),
    account_id: caller.accountId,
    collection_id: collection.id,
    display_name: fields.displayName,
    display_name_key: fields.displayName.toLowerCase(),
    external_id: fields.externalId,
    version: 1,
    created_at: now,
    updated_at: now,
  };
  try {
    await insertScimGroup(deps.db.kysely, row);
  } catch (error) {
    // Another request created a group of that name between the check and the insert.
    await archiveCollection(deps, caller.accountId, collection.id);
    if (isUniqueViolation(error)) throw takenName(fields.displayName);
    throw error;
  }
  await setMembers(deps, caller, row, fields.memberIds);
  return present(deps, row);
}

export async function getScimGroup(deps: Deps, caller: ScimCaller, id: string, query: ListQuery = {}): Promise<Json> {
  return present(deps, await requireGroup(deps, caller, id), query);
}

export async function listScimGroups(deps: Deps, caller: ScimCaller, query: ListQuery) {
  const condition = groupFilter(query.filter);
  const page = pageOf(query);
  const { rows, total } = await listScimGroupRows(deps.db.kysely, caller.accountId, condition, page);
  const members = wantsMembers(query)
    ? await listGroupMembers(
        deps.db.kysely,
        rows.map((r) => r.id),
      )
    : [];
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: total,
    startIndex: page.startIndex,
    itemsPerPage: rows.length,
    Resources: rows.map((row) =>
      project(
        groupResource(
          deps.config.baseUrl,
          row,
          members.filter((m) => m.group_id === row.id),
        ),
        query,
      ),
    ),
  };
}

async function writeGroup(deps: Deps, caller: ScimCaller, current: ScimGroupRow, fields: GroupFields): Promise<Json> {
  const key = fields.displayName.toLowerCase();
  if (key !== current.display_name_key) {
    const other = await findScimGroupByName(deps.db.kysely, caller.accountId, key);
    if (other && other.id !== current.id) throw takenName(fields.displayName);
  }
  if (fields.displayName !== current.display_name) {
    await updateCollection(deps, caller.accountId, current.collection_id, { name: fields.displayName });
  }
  let row: ScimGroupRow;
  try {
    row = await updateScimGroupRow(deps.db.kysely, current.id, {
      display_name: fields.displayName,
      display_name_key: key,
      external_id: fields.externalId,
      version: current.version + 1,
      updated_at: laterThan(deps.clock, current.updated_at),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw takenName(fields.displayName);
    throw error;
  }
  await setMembers(deps, caller, row, fields.memberIds);
  return present(deps, row);
}

export async function replaceScimGroup(deps: Deps, caller: ScimCaller, id: string, body: unknown): Promise<Json> {
  const current = await requireGroup(deps, caller, id);
  return writeGroup(deps, caller, current, readGroup(body));
}

/** Entra ID and Okta add and remove members by PATCH; the result is applied like a PUT. */
export async function patchScimGroup(deps: Deps, caller: ScimCaller, id: string, body: unknown): Promise<Json> {
  const current = await requireGroup(deps, caller, id);
  const members = await listGroupMembers(deps.db.kysely, [current.id]);
  const resource = groupResource(deps.config.baseUrl, current, members);
  delete resource.meta;
  delete resource.id;
  const patched = applyPatch(resource, current.id, body);
  return writeGroup(deps, caller, current, readGroup(patched));
}

/** Deletes the Group and archives its collection (erased when the archive's retention window closes). */
export async function deleteScimGroup(deps: Deps, caller: ScimCaller, id: string): Promise<void> {
  const current = await requireGroup(deps, caller, id);
  await deleteScimGroupRow(deps.db.kysely, current.id);
  await archiveCollection(deps, caller.accountId, current.collection_id).catch((error: unknown) => {
    // Archived already (by an organiser): nothing more to do.
    if (!(error instanceof AppError && error.status === 404)) throw error;
  });
}
