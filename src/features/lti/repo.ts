/** Every query of the LTI tool: registrations, the tool's keys, launch nonces, courses and their rosters. */
import type { Kysely, Selectable } from 'kysely';
import type {
  Database,
  LtiContextsTable,
  LtiLaunchTicketsTable,
  LtiRegistrationLinksTable,
  LtiRegistrationsTable,
  LtiRosterTable,
  LtiToolKeysTable,
} from '../../db/schema.js';

type Db = Kysely<Database>;
export type RegistrationRow = Selectable<LtiRegistrationsTable>;
export type ToolKeyRow = Selectable<LtiToolKeysTable>;
export type ContextRow = Selectable<LtiContextsTable>;
export type RosterRow = Selectable<LtiRosterTable>;
export type RegistrationLinkRow = Selectable<LtiRegistrationLinksTable>;

export const insertRegistration = (db: Db, row: RegistrationRow) => db.insertInto('lti_registrations').values(row).execute();

export const updateRegistration = (db: Db, accountId: string, id: string, changes: Partial<RegistrationRow>) =>
  db.updateTable('lti_registrations').set(changes).where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

export const deleteRegistration = (db: Db, accountId: string, id: string) =>
  db.deleteFrom('lti_registrations').where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();

export const listRegistrations = (db: Db, accountId: string): Promise<RegistrationRow[]> =>
  db
    .selectFrom('lti_registrations')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

export const findRegistrationById = (db: Db, id: string): Promise<RegistrationRow | undefined> =>
  db.selectFrom('lti_registrations').selectAll().where('id', '=', id).executeTakeFirst();

/** Registrations of an issuer, for a login initiation that may name no client id. */
export const findRegistrationsOfIssuer = (db: Db, issuer: string): Promise<RegistrationRow[]> =>
  db.selectFrom('lti_registrations').selectAll().where('issuer', '=', issuer).orderBy('created_at').execute();

export const listToolKeys = (db: Db): Promise<ToolKeyRow[]> =>
  db.selectFrom('lti_tool_keys').selectAll().orderBy('signs_from', 'desc').orderBy('kid').execute();

export const insertToolKey = (db: Db, row: ToolKeyRow) => db.insertInto('lti_tool_keys').values(row).execute();

/** Sets when the keys other than `keepKid` stop being published (only those not already set to go earlier). */
export const retireToolKeysExcept = (db: Db, keepKid: string, retiresAt: string) =>
  db
    .updateTable('lti_tool_keys')
    .set({ retires_at: retiresAt })
    .where('kid', '!=', keepKid)
    .where((eb) => eb.or([eb('retires_at', 'is', null), eb('retires_at', '>', retiresAt)]))
    .execute();

export const deleteRetiredToolKeys = (db: Db, now: string) =>
  db.deleteFrom('lti_tool_keys').where('retires_at', 'is not', null).where('retires_at', '<=', now).execute();

export const insertLaunchNonce = (
  db: Db,
  row: {
    nonce: string;
    state_hash: string;
    login_query: string;
    registration_id: string;
    created_at: string;
    expires_at: string;
  },
) =>
  db
    .insertInto('lti_launch_nonces')
    .values({ ...row, used_at: null })
    .execute();

/**
 * Uses the nonce up, once, in whichever process gets there first: true when this call did (it
 * was issued for `stateHash`, not used and not expired).
 */
export async function useLaunchNonce(db: Db, input: { nonce: string; stateHash: string; registrationId: string; now: string }) {
  const result = await db
    .updateTable('lti_launch_nonces')
    .set({ used_at: input.now })
    .where('nonce', '=', input.nonce)
    .where('state_hash', '=', input.stateHash)
    .where('registration_id', '=', input.registrationId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The login (its query and registration) of an unused, unexpired login by its state's hash. */
export const findLoginByState = async (
  db: Db,
  stateHash: string,
  now: string,
): Promise<{ login_query: string; registration_id: string } | null> =>
  (await db
    .selectFrom('lti_launch_nonces')
    .select(['login_query', 'registration_id'])
    .where('state_hash', '=', stateHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst()) ?? null;

export const deleteOldLaunchNonces = async (db: Db, before: string) => {
  await db.deleteFrom('lti_launch_nonces').where('expires_at', '<', before).execute();
  await db.deleteFrom('lti_launch_tickets').where('expires_at', '<', before).execute();
};

export const insertLaunchTicket = (db: Db, row: Omit<Selectable<LtiLaunchTicketsTable>, 'used_at'>) =>
  db
    .insertInto('lti_launch_tickets')
    .values({ ...row, used_at: null })
    .execute();

/**
 * Uses the ticket up, once, in whichever process gets there first, and returns it; null when it
 * is unknown, used or expired. A ticket is spent even when the state sent with it is wrong.
 */
export async function useLaunchTicket(
  db: Db,
  ticketHash: string,
  now: string,
): Promise<Selectable<LtiLaunchTicketsTable> | null> {
  const result = await db
    .updateTable('lti_launch_tickets')
    .set({ used_at: now })
    .where('ticket_hash', '=', ticketHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) !== 1) return null;
  return (await db.selectFrom('lti_launch_tickets').selectAll().where('ticket_hash', '=', ticketHash).executeTakeFirst()) ?? null;
}

export const findContext = (db: Db, registrationId: string, contextId: string): Promise<ContextRow | undefined> =>
  db
    .selectFrom('lti_contexts')
    .selectAll()
    .where('registration_id', '=', registrationId)
    .where('context_id', '=', contextId)
    .executeTakeFirst();

export const findContextById = (db: Db, id: string): Promise<ContextRow | undefined> =>
  db.selectFrom('lti_contexts').selectAll().where('id', '=', id).executeTakeFirst();

export const insertContext = (db: Db, row: ContextRow) => db.insertInto('lti_contexts').values(row).execute();

export const updateContext = (db: Db, id: string, changes: Partial<ContextRow>) =>
  db.updateTable('lti_contexts').set(changes).where('id', '=', id).execute();

/**
 * Takes the course's scheduled sync for this process: true when `synced_at` was still what the
 * caller read (the same pass in another process changed it first otherwise).
 */
export async function claimContextSync(db: Db, id: string, seenSyncedAt: string | null, now: string): Promise<boolean> {
  const result = await db
    .updateTable('lti_contexts')
    .set({ synced_at: now })
    .where('id', '=', id)
    .where((eb) => (seenSyncedAt === null ? eb('synced_at', 'is', null) : eb('synced_at', '=', seenSyncedAt)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Courses with a memberships URL, for the scheduled roster sync. */
export const listSyncableContexts = (db: Db): Promise<ContextRow[]> =>
  db.selectFrom('lti_contexts').selectAll().where('memberships_url', 'is not', null).orderBy('id').execute();

export const listRoster = (db: Db, contextRowId: string): Promise<RosterRow[]> =>
  db.selectFrom('lti_roster').selectAll().where('context_row_id', '=', contextRowId).execute();

export const upsertRosterEntry = (db: Db, row: RosterRow) =>
  db
    .insertInto('lti_roster')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ departed_at: row.departed_at, synced_at: row.synced_at }))
    .execute();

export const markRosterDeparted = (db: Db, userIds: string[], at: string) =>
  userIds.length === 0
    ? Promise.resolve()
    : db
        .updateTable('lti_roster')
        .set({ departed_at: at })
        .where('user_id', 'in', userIds)
        .where('departed_at', 'is', null)
        .execute();

/** The stored frame origins (JSON arrays) of the courses linked to a collection. */
export const frameOriginsOfCollection = (db: Db, collectionId: string) =>
  db
    .selectFrom('lti_contexts')
    .select('frame_origins')
    .where('collection_id', '=', collectionId)
    .where('frame_origins', 'is not', null)
    .execute();
export const insertRegistrationLink = (db: Db, row: RegistrationLinkRow) =>
  db.insertInto('lti_registration_links').values(row).execute();

export const findRegistrationLinkByPrefix = (db: Db, prefix: string): Promise<RegistrationLinkRow | undefined> =>
  db.selectFrom('lti_registration_links').selectAll().where('prefix', '=', prefix).executeTakeFirst();

/** The organisation's links still usable at `now` (not used, revoked or expired), newest first. */
export const listOpenRegistrationLinks = (db: Db, accountId: string, now: string): Promise<RegistrationLinkRow[]> =>
  db
    .selectFrom('lti_registration_links')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();

export async function revokeRegistrationLinkRow(db: Db, accountId: string, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('lti_registration_links')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('account_id', '=', accountId)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Uses the link up for `registrationId`, once, in whichever process gets there first: true when this call did. */
export async function useRegistrationLink(db: Db, input: { id: string; registrationId: string; now: string }) {
  const result = await db
    .updateTable('lti_registration_links')
    .set({ used_at: input.now, registration_id: input.registrationId })
    .where('id', '=', input.id)
    .where('used_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', input.now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
