/**
 * Users of a collection: the people who record their names. Every write keeps the
 * collection's `member_count` / `recorded_count` exact by adjusting them in the same
 * transaction; deleting a user removes their recording and its audio (privacy). Creating
 * them, one or a batch, is in `create-service.ts`.
 */
import { eraseTracesOfPerson } from '../erasure/service.js';
import { recordEvent } from '../events/service.js';
import type { Logger } from 'pino';
import type { BlobStore } from '../../blobs/index.js';
import type { Db } from '../../db/index.js';
import type { Deps } from '../../deps.js';
import { withTransaction } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { type Clock, laterThan } from '../../lib/clock.js';
import { isUuid, randomToken } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { composeDisplayName, isDefaultDisplayName, type NameOrder, nameOrderOf } from '../../lib/name-order.js';
import type { CustomField } from '../collections/schemas.js';
import {
  adjustMemberCount,
  type CollectionRow,
  countRecordingStatusChange,
  requireLiveCollection,
} from '../collections/service.js';
import { invalidatePlayLinksOfUser } from '../play-links/index.js';
import { deleteAudioLater, recordingBlobPrefix, recordRecordingDeleted } from '../recordings/service.js';
import {
  deleteUserRow,
  findUser,
  listUsers as listUserRows,
  lockUser,
  type UserRow,
  type UserWithRecording,
  uniqueViolation,
  updateUserRow,
} from './repo.js';
import { queueGuides } from '../pronunciation/generate-job.js';
import { toPronunciation } from '../pronunciation/present.js';
import type { GuideRow } from '../pronunciation/present.js';
import { GUIDE_FIELDS, guidesOf, writeGuide } from '../pronunciation/service.js';
import { changedFields, type FieldSource, latestWriter, parseSources, stampSources } from './provenance.js';
import type { ListUsersQuery, UpdateUserBody, User } from './schemas.js';
import { canonicalLanguage } from '../../lib/languages.js';
import {
  type CustomValues,
  checkCustomValues,
  type Issue,
  LANGUAGE_FIELDS,
  languageIssue,
  personLanguageIssue,
  personLanguageOf,
  normalizeUserEmail,
  notBlank,
} from './validate.js';

export type UsersDeps = {
  db: Db;
  clock: Clock;
  blobs: BlobStore;
  logger: Logger;
  config: { baseUrl: string; playLinks: { cacheTtlMs: number; audioPublicBaseUrl: string | null } };
  playLinks: Deps['playLinks'];
  jobsWakeup: Deps['jobsWakeup'];
  speech: Deps['speech'];
};

export const recordUrl = (baseUrl: string, token: string) => `${baseUrl}/r/${token}`;
export const newRecordToken = () => randomToken(24);

export function toUser(baseUrl: string, row: UserRow, hasRecording: boolean, guide: GuideRow | null = null): User {
  const sources = parseSources(row.field_sources);
  return {
    id: row.id,
    collection_id: row.collection_id,
    email: row.email,
    first_name: row.first_name,
    last_name: row.last_name,
    display_name: row.display_name,
    preferred_name: row.preferred_name,
    pronouns: row.pronouns,
    external_id: row.external_id,
    phonetic_spelling: row.phonetic_spelling,
    name_language: row.name_language,
    given_name_language: row.given_name_language,
    family_name_language: row.family_name_language,
    language: row.language,
    custom_fields: JSON.parse(row.custom_fields) as CustomValues,
    has_recording: hasRecording,
    recording_status: row.recording_status,
    review_note: row.review_note,
    listened_at: row.listened_at,
    record_url: recordUrl(baseUrl, row.record_token),
    invitation: {
      status: row.mail_status,
      error: row.mail_error,
      invited_at: row.invited_at,
      updated_at: row.mail_updated_at,
      unsubscribed_at: row.unsubscribed_at,
    },
    pronunciation: toPronunciation(baseUrl, row.recording_status, guide),
    field_sources: sources,
    updated_by: latestWriter(sources),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const withRecording = (baseUrl: string, guides: ReadonlyMap<string, GuideRow>) => (row: UserWithRecording) =>
  toUser(baseUrl, row, row.recording_user_id !== null, guides.get(row.id));
/** The collection's custom field definitions. */
export const definitionsOf = (collection: CollectionRow) => JSON.parse(collection.custom_fields) as CustomField[];
/** First + last name (family name first with `family_first`), or the first name alone for people with one name. */
export const defaultDisplayName = (first: string, last: string, order: NameOrder = 'given_first') =>
  composeDisplayName(first, last, order);
/** Optional text: trimmed, and null when absent or blank. */
export const optionalText = (value: string | null | undefined) => value?.trim() || null;

/** The 409 for an e-mail or external_id another person of the collection has. */
export function conflictError(kind: 'email' | 'external_id', value: string | null): AppError {
  return kind === 'email'
    ? new AppError('email_taken', `A user with the e-mail "${value}" already exists in this collection.`, { param: 'email' })
    : new AppError('external_id_taken', `A user with the external_id "${value}" already exists in this collection.`, {
        param: 'external_id',
      });
}

async function requireUser(deps: UsersDeps, collectionId: string, userId: string): Promise<UserWithRecording> {
  const row = isUuid(userId) ? await findUser(deps.db.kysely, collectionId, userId) : undefined;
  if (!row) throw notFound('user', 'user_id');
  return row;
}

/** The user, or 404 when the collection or user is unknown, archived or another account's. */
export async function getUser(deps: UsersDeps, accountId: string, collectionId: string, userId: string): Promise<User> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const row = await requireUser(deps, collection.id, userId);
  return withRecording(deps.config.baseUrl, await guidesOf(deps, [row.id]))(row);
}

/** A page of the collection's users, newest first, optionally filtered. */
export async function listUsers(deps: UsersDeps, accountId: string, collectionId: string, query: ListUsersQuery) {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const limit = query.limit ?? 50;
  const emailNormalized = query.email === undefined ? undefined : query.email.trim().toLowerCase();
  const rows = await listUserRows(
    deps.db.kysely,
    collection.id,
    {
      ...(query.has_recording === undefined ? {} : { hasRecording: query.has_recording }),
      ...(query.recording_status === undefined ? {} : { recordingStatus: query.recording_status }),
      ...(emailNormalized === undefined ? {} : { emailNormalized }),
      ...(query.external_id === undefined ? {} : { externalId: query.external_id }),
    },
    decodeCursor(query.cursor),
    limit + 1,
  );
  const guides = await guidesOf(
    deps,
    rows.slice(0, limit).map((row) => row.id),
  );
  return toPage(rows, limit, withRecording(deps.config.baseUrl, guides));
}

/**
 * Changes the given fields. `display_name` follows first/last name while it still equals
 * their default; null resets it. Custom field changes are merged (null removes a value).
 * `writer` is who asks: an organiser's single edit is explicit and replaces what the person
 * set; the person's own edit (record page) marks the fields theirs. Each field that really
 * changes records its writer, and `user.updated` is recorded in the same transaction.
 */
export async function updateUser(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  userId: string,
  input: UpdateUserBody,
  writer: FieldSource = 'organiser',
): Promise<User> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const current = await requireUser(deps, collection.id, userId);
  const changes: Partial<UserRow> = {};
  const fail = (issue: Issue) => new AppError(issue.code, issue.message, { param: issue.field });
  if (input.email !== undefined) {
    const email = normalizeUserEmail(input.email);
    if ('issue' in email) throw fail(email.issue);
    Object.assign(changes, { email: input.email.trim(), email_normalized: email.ok });
  }
  if (input.first_name !== undefined) {
    const blank = notBlank(input.first_name, 'first_name');
    if (blank) throw fail(blank);
    changes.first_name = input.first_name.trim();
  }
  if (input.last_name !== undefined) changes.last_name = input.last_name?.trim() ?? '';
  const first = changes.first_name ?? current.first_name;
  const last = changes.last_name ?? current.last_name;
  if (input.display_name === null) changes.display_name = defaultDisplayName(first, last);
  else if (input.display_name !== undefined) {
    const blank = notBlank(input.display_name, 'display_name');
    if (blank) throw fail(blank);
    changes.display_name = input.display_name.trim();
  } else if (isDefaultDisplayName(current.display_name, current.first_name, current.last_name)) {
    // A default display name follows the names, in the order it was composed in.
    changes.display_name = defaultDisplayName(
      first,
      last,
      nameOrderOf(current.display_name, current.first_name, current.last_name),
    );
  }
  if (input.external_id !== undefined) changes.external_id = input.external_id;
  if (input.phonetic_spelling !== undefined) changes.phonetic_spelling = optionalText(input.phonetic_spelling);
  if (input.preferred_name !== undefined) changes.preferred_name = optionalText(input.preferred_name);
  if (input.pronouns !== undefined) changes.pronouns = optionalText(input.pronouns);
  for (const field of LANGUAGE_FIELDS) {
    if (input[field] === undefined) continue;
    const issue = languageIssue(input[field], field);
    if (issue) throw fail(issue);
    changes[field] = canonicalLanguage(input[field]);
  }
  if (input.language !== undefined) {
    const issue = personLanguageIssue(input.language);
    if (issue) throw fail(issue);
    changes.language = personLanguageOf(input.language);
  }
  if (input.custom_fields !== undefined) {
    const custom = checkCustomValues(definitionsOf(collection), JSON.parse(current.custom_fields), input.custom_fields);
    if (custom.issues[0]) throw fail(custom.issues[0]);
    changes.custom_fields = JSON.stringify(custom.values);
  }
  changes.updated_at = laterThan(deps.clock, current.updated_at);
  const changed = changedFields(current, { ...current, ...changes });
  // The guide after the fields: a new language makes it in that language.
  const withGuide = async (row: UserRow) => {
    const guide = input.pronunciation
      ? await writeGuide(
          deps,
          { ...row, account_id: collection.account_id },
          input.pronunciation,
          writer === 'person' ? 'person' : 'organiser',
        )
      : (await guidesOf(deps, [row.id])).get(row.id);
    return toUser(deps.config.baseUrl, row, current.recording_user_id !== null, guide);
  };
  if (changed.length === 0) return withGuide(current);
  changes.field_sources = JSON.stringify(stampSources(parseSources(current.field_sources), changed, writer, changes.updated_at));
  try {
    const row = await withTransaction(deps, async (tx) => {
      // The player page shows the names, pronouns and phonetic spelling from the cached link.
      tx.afterCommit(() => invalidatePlayLinksOfUser(deps, current.id));
      const updated = await updateUserRow(tx.trx, current.id, changes);
      if (changed.some((field) => (GUIDE_FIELDS as readonly string[]).includes(field))) await queueGuides(tx, [current.id]);
      await recordEvent(tx, {
        accountId: collection.account_id,
        type: 'user.updated',
        data: {
          collection_id: collection.id,
          user_id: current.id,
          external_id: updated.external_id,
          changed_fields: changed,
          updated_by: writer,
          updated_at: updated.updated_at,
        },
        at: new Date(updated.updated_at),
      });
      return updated;
    });
    return await withGuide(row);
  } catch (error) {
    const kind = uniqueViolation(error);
    if (kind) throw conflictError(kind, kind === 'email' ? (changes.email ?? null) : (changes.external_id ?? null));
    throw error;
  }
}

/** Replaces the recorder-page token: the old `record_url` stops working at once. */
export async function rotateRecordLink(deps: UsersDeps, accountId: string, collectionId: string, userId: string): Promise<User> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const current = await requireUser(deps, collection.id, userId);
  const row = await updateUserRow(deps.db.kysely, current.id, {
    record_token: newRecordToken(),
    updated_at: laterThan(deps.clock, current.updated_at),
  });
  return toUser(deps.config.baseUrl, row, current.recording_user_id !== null);
}

/**
 * Deletes the user, their recording, play links and audio files. When they had a recording,
 * `recorded_count` drops and a `recording.deleted` event is recorded in the same transaction.
 */
export async function deleteUser(deps: UsersDeps, accountId: string, collectionId: string, userId: string) {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  if (!isUuid(userId)) throw notFound('user', 'user_id');
  const at = deps.clock.now();
  await withTransaction(deps, async (tx) => {
    tx.afterCommit(() => invalidatePlayLinksOfUser(deps, userId));
    const user = await lockUser(tx.trx, collection.id, userId, at.toISOString());
    if (!user) throw notFound('user', 'user_id');
    await eraseTracesOfPerson(tx, collection.account_id, user.id, at.toISOString());
    await recordRecordingDeleted(tx, deps, { accountId: collection.account_id, user, at });
    await recordEvent(tx, {
      accountId: collection.account_id,
      type: 'user.deleted',
      data: { collection_id: collection.id, user_id: user.id, deleted_at: at.toISOString() },
      at,
    });
    await deleteUserRow(tx.trx, user.id);
    await adjustMemberCount(tx.trx, collection.id, -1);
    await countRecordingStatusChange(tx.trx, collection.id, user.recording_status, 'none');
    // Every audio file of this user, including any orphan from an interrupted upload.
    await deleteAudioLater(tx, deps, { prefix: recordingBlobPrefix(userId) });
  });
  return { deleted: true as const, id: userId };
}
