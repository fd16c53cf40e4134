/** Every query of SCIM provisioning: tokens, users, groups and their members (0030). */
import type { Expression, ExpressionBuilder, Kysely, SqlBool } from 'kysely';
import type { Database, ScimGroupsTable, ScimTokensTable, ScimUsersTable } from '../../db/schema.js';

export type ScimTokenRow = ScimTokensTable;
export type ScimUserRow = ScimUsersTable;
export type ScimGroupRow = ScimGroupsTable;

/** A filter the service translated from SCIM: comparisons on indexed columns, joined by and/or. */
export type UserCondition =
  | { column: 'user_name_key' | 'external_id' | 'email' | 'id'; value: string }
  | { all: UserCondition[] }
  | { any: UserCondition[] };
export type GroupCondition =
  { column: 'display_name_key' | 'external_id' | 'id'; value: string } | { all: GroupCondition[] } | { any: GroupCondition[] };

// --- Tokens -------------------------------------------------------------------------------

export const insertScimToken = (db: Kysely<Database>, row: ScimTokenRow) => db.insertInto('scim_tokens').values(row).execute();

export const findScimTokenByPrefix = (db: Kysely<Database>, prefix: string) =>
  db.selectFrom('scim_tokens').selectAll().where('prefix', '=', prefix).executeTakeFirst();

export const listScimTokensOfAccount = (db: Kysely<Database>, accountId: string) =>
  db.selectFrom('scim_tokens').selectAll().where('account_id', '=', accountId).orderBy('created_at', 'desc').execute();

export async function revokeScimTokenRow(db: Kysely<Database>, accountId: string, id: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('scim_tokens')
    .set({ revoked_at: at })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const touchScimToken = (db: Kysely<Database>, id: string, at: string) =>
  db.updateTable('scim_tokens').set({ last_used_at: at }).where('id', '=', id).execute();

// --- Users --------------------------------------------------------------------------------

function userWhere(eb: ExpressionBuilder<Database, 'scim_users'>, condition: UserCondition): Expression<SqlBool> {
  if ('all' in condition) return eb.and(condition.all.map((c) => userWhere(eb, c)));
  if ('any' in condition) return eb.or(condition.any.map((c) => userWhere(eb, c)));
  return eb(condition.column, '=', condition.value);
}

export const insertScimUser = (db: Kysely<Database>, row: ScimUserRow) => db.insertInto('scim_users').values(row).execute();

export const findScimUser = (db: Kysely<Database>, accountId: string, id: string) =>
  db.selectFrom('scim_users').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();

export const findScimUserByUserName = (db: Kysely<Database>, accountId: string, userNameKey: string) =>
  db
    .selectFrom('scim_users')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('user_name_key', '=', userNameKey)
    .executeTakeFirst();

export const updateScimUserRow = (db: Kysely<Database>, id: string, changes: Partial<ScimUserRow>) =>
  db.updateTable('scim_users').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export async function deleteScimUserRow(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('scim_group_members').where('scim_user_id', '=', id).execute();
  await db.deleteFrom('scim_users').where('id', '=', id).execute();
}

export async function listScimUserRows(
  db: Kysely<Database>,
  accountId: string,
  condition: UserCondition | null,
  page: { offset: number; limit: number },
): Promise<{ rows: ScimUserRow[]; total: number }> {
  const base = db
    .selectFrom('scim_users')
    .where('account_id', '=', accountId)
    .where((eb) => (condition ? userWhere(eb, condition) : eb.lit(true)));
  const counted = await base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const rows =
    page.limit === 0
      ? []
      : await base.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute();
  return { rows, total: Number(counted.n) };
}

// --- Groups and members -------------------------------------------------------------------

function groupWhere(eb: ExpressionBuilder<Database, 'scim_groups'>, condition: GroupCondition): Expression<SqlBool> {
  if ('all' in condition) return eb.and(condition.all.map((c) => groupWhere(eb, c)));
  if ('any' in condition) return eb.or(condition.any.map((c) => groupWhere(eb, c)));
  return eb(condition.column, '=', condition.value);
}

export const insertScimGroup = (db: Kysely<Database>, row: ScimGroupRow) => db.insertInto('scim_groups').values(row).execute();

export const findScimGroup = (db: Kysely<Database>, accountId: string, id: string) =>
  db.selectFrom('scim_groups').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();

export const findScimGroupByName = (db: Kysely<Database>, accountId: string, displayNameKey: string) =>
  db
    .selectFrom('scim_groups')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('display_name_key', '=', displayNameKey)
    .executeTakeFirst();

export const updateScimGroupRow = (db: Kysely<Database>, id: string, changes: Partial<ScimGroupRow>) =>
  db.updateTable('scim_groups').set(changes).where('id', '=', id).returningAll().executeTakeFirstOrThrow();

export async function deleteScimGroupRow(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('scim_group_members').where('group_id', '=', id).execute();
  await db.deleteFrom('scim_groups').where('id', '=', id).execute();
}

export async function listScimGroupRows(
  db: Kysely<Database>,
  accountId: string,
  condition: GroupCondition | null,
  page: { offset: number; limit: number },
): Promise<{ rows: ScimGroupRow[]; total: number }> {
  const base = db
    .selectFrom('scim_groups')
    .where('account_id', '=', accountId)
    .where((eb) => (condition ? groupWhere(eb, condition) : eb.lit(true)));
  const counted = await base.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  const rows =
    page.limit === 0
      ? []
      : await base.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute();
  return { rows, total: Number(counted.n) };
}

/** The members of these groups, with the userName shown as each member's `display`. */
export async function listGroupMembers(db: Kysely<Database>, groupIds: string[]) {
  if (groupIds.length === 0) return [];
  return db
    .selectFrom('scim_group_members')
    .innerJoin('scim_users', 'scim_users.id', 'scim_group_members.scim_user_id')
    .select([
      'scim_group_members.group_id',
      'scim_group_members.scim_user_id',
      'scim_group_members.person_id',
      'scim_users.user_name',
    ])
    .where('scim_group_members.group_id', 'in', groupIds)
    .orderBy('scim_group_members.created_at')
    .execute();
}

export const insertGroupMember = (
  db: Kysely<Database>,
  row: { group_id: string; scim_user_id: string; person_id: string; created_at: string },
) => db.insertInto('scim_group_members').values(row).execute();

export const deleteGroupMember = (db: Kysely<Database>, groupId: string, scimUserId: string) =>
  db.deleteFrom('scim_group_members').where('group_id', '=', groupId).where('scim_user_id', '=', scimUserId).execute();

/** Every group this user belongs to, with the collection and the person the membership made there. */
export const listMembershipsOfUser = (db: Kysely<Database>, scimUserId: string) =>
  db
    .selectFrom('scim_group_members')
    .innerJoin('scim_groups', 'scim_groups.id', 'scim_group_members.group_id')
    .select(['scim_group_members.group_id', 'scim_group_members.person_id', 'scim_groups.collection_id'])
    .where('scim_group_members.scim_user_id', '=', scimUserId)
    .execute();

/** Which of these ids are users of the account. */
export const findScimUsersByIds = (db: Kysely<Database>, accountId: string, ids: string[]) =>
  ids.length === 0
    ? Promise.resolve([] as ScimUserRow[])
    : db.selectFrom('scim_users').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
