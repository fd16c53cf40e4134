import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Where the previous page of an export ended, in import order. */
export interface ImportOrderCursor {
  createdAt: string;
  importPosition: number;
  id: string;
}

/**
 * One page of a collection's people in import order (oldest first, then position within their
 * import), after `cursor`, with their recording's blob key, active play-link token and
 * pronunciation guide (looked up by its key). The
 * row-value comparison is a range of the `users_collection_import_order` index, so the last
 * page of 100,000 people costs what the first does.
 */
export function listPeopleInImportOrder(
  db: Kysely<Database>,
  collectionId: string,
  cursor: ImportOrderCursor | null,
  limit: number,
) {
  let query = db
    .selectFrom('users')
    .leftJoin('recordings', 'recordings.user_id', 'users.id')
    .leftJoin('pronunciations', 'pronunciations.user_id', 'users.id')
    .select([
      'users.id',
      'users.created_at',
      'users.import_position',
      'users.email',
      'users.first_name',
      'users.last_name',
      'users.display_name',
      'users.external_id',
      'users.phonetic_spelling',
      'users.custom_fields',
      'users.record_token',
      'users.recording_status',
      'users.review_note',
      'users.name_language',
      'users.preferred_name',
      'users.pronouns',
      'users.language',
      'users.mail_status',
      'users.unsubscribed_at',
      'recordings.blob_key',
      'recordings.recorded_at',
      'pronunciations.user_id as guide_user_id',
      'pronunciations.ipa',
      'pronunciations.respelling',
      'pronunciations.not_like',
      'pronunciations.approved_at as guide_approved_at',
    ])
    // At most one active link per person (a partial unique index says so).
    .select((eb) =>
      eb
        .selectFrom('play_links')
        .select('play_links.token')
        .whereRef('play_links.user_id', '=', 'users.id')
        .where('play_links.status', '=', 'active')
        .limit(1)
        .as('play_token'),
    )
    .where('users.collection_id', '=', collectionId);
  if (cursor) {
    query = query.where(
      sql<SqlBool>`(users.created_at, users.import_position, users.id) > (${cursor.createdAt}, ${cursor.importPosition}, ${cursor.id})`,
    );
  }
  return query
    .orderBy('users.created_at', 'asc')
    .orderBy('users.import_position', 'asc')
    .orderBy('users.id', 'asc')
    .limit(limit)
    .execute();
}

export type ExportPersonRow = Awaited<ReturnType<typeof listPeopleInImportOrder>>[number];

/** The person's current recording, if any. */
export const findRecordingOf = (db: Kysely<Database>, userId: string) =>
  db.selectFrom('recordings').selectAll().where('user_id', '=', userId).executeTakeFirst();

/** Every play link the person has had (active and retired), oldest first. */
export const playLinksOf = (db: Kysely<Database>, userId: string) =>
  db
    .selectFrom('play_links')
    .select(['token', 'status', 'created_at', 'retired_at'])
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .execute();

/** Events whose data names the person (their id is a UUID, so a text match finds exactly those), oldest first. */
export const eventsAbout = (db: Kysely<Database>, accountId: string, userId: string) =>
  db
    .selectFrom('events')
    .select(['id', 'type', 'data', 'created_at'])
    .where('account_id', '=', accountId)
    .where('data', 'like', `%${userId}%`)
    .orderBy('created_at')
    .execute();

/**
 * The identities other systems gave the person: the SCIM user an identity provider manages
 * (the provider's userName, e-mail and externalId stay until the provider deletes it) and the
 * LMS course membership a roster sync keeps. Both are data held about the person.
 */
export const provisionedIdentitiesOf = async (db: Kysely<Database>, accountId: string, userId: string) => {
  const [scim, lms] = await Promise.all([
    db
      .selectFrom('scim_group_members')
      .innerJoin('scim_users', 'scim_users.id', 'scim_group_members.scim_user_id')
      .select([
        'scim_users.id',
        'scim_users.user_name',
        'scim_users.external_id',
        'scim_users.email',
        'scim_users.active',
        'scim_users.updated_at',
      ])
      .where('scim_group_members.person_id', '=', userId)
      .where('scim_users.account_id', '=', accountId)
      .executeTakeFirst(),
    db
      .selectFrom('lti_roster')
      .innerJoin('lti_contexts', 'lti_contexts.id', 'lti_roster.context_row_id')
      .innerJoin('lti_registrations', 'lti_registrations.id', 'lti_contexts.registration_id')
      .select([
        'lti_roster.lti_user_id',
        'lti_registrations.issuer',
        'lti_contexts.title',
        'lti_roster.departed_at',
        'lti_roster.synced_at',
      ])
      .where('lti_roster.user_id', '=', userId)
      .where('lti_registrations.account_id', '=', accountId)
      .executeTakeFirst(),
  ]);
  return { scim, lms };
};
