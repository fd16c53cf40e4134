/**
 * Users of a collection: the people who record their names. Every write keeps the
 * collection's `member_count` / `recorded_count` exact by adjusting them in the same
 * transaction; deleting a user removes their recording and its audio (privacy).
 */
import { eraseTracesOfPerson } from '../erasure/service.js';
import { recordEvent } from '../events/service.js';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BlobStore } from '../../blobs/index.js';
import type { Db } from '../../db/index.js';
import type { Deps } from '../../deps.js';
import type { Database } from '../../db/schema.js';
import { withTransaction } from '../../db/transaction.js';
import { AppError, type ItemError, notFound } from '../../errors.js';
import { validationError } from '../../http/validation.js';
import { type Clock, laterThan } from '../../lib/clock.js';
import { isUuid, newId, randomToken } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
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
  findTakenIdentifiers,
  findUser,
  insertUsers,
  listUsers as listUserRows,
  lockUser,
  type UserRow,
  type UserWithRecording,
  uniqueViolation,
  updateUserRow,
} from './repo.js';
import { changedFields, type FieldSource, latestWriter, newPersonSources, parseSources, stampSources } from './provenance.js';
import type { CreateUserBody, ListUsersQuery, UpdateUserBody, User } from './schemas.js';
import { type CustomValues, checkCustomValues, type Issue, normalizeUserEmail, notBlank, shapeIssues } from './validate.js';

export type UsersDeps = {
  db: Db;
  clock: Clock;
  blobs: BlobStore;
  logger: Logger;
  config: { baseUrl: string; playLinks: { cacheTtlMs: number; audioPublicBaseUrl: string | null } };
  playLinks: Deps['playLinks'];
  jobsWakeup: Deps['jobsWakeup'];
};

export const recordUrl = (baseUrl: string, token: string) => `${baseUrl}/r/${token}`;
export const newRecordToken = () => randomToken(24);

export function toUser(baseUrl: string, row: UserRow, hasRecording: boolean): User {
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
    custom_fields: JSON.parse(row.custom_fields) as CustomValues,
    has_recording: hasRecording,
    recording_status: row.recording_status,
    review_note: row.review_note,
    record_url: recordUrl(baseUrl, row.record_token),
    invitation: {
      status: row.mail_status,
      error: row.mail_error,
      invited_at: row.invited_at,
      updated_at: row.mail_updated_at,
      unsubscribed_at: row.unsubscribed_at,
    },
    field_sources: sources,
    updated_by: latestWriter(sources),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const withRecording = (baseUrl: string) => (row: UserWithRecording) => toUser(baseUrl, row, row.recording_user_id !== null);
const definitionsOf = (collection: CollectionRow) => JSON.parse(collection.custom_fields) as CustomField[];
/** First + last name, or the first name alone for people with one name. */
export const defaultDisplayName = (first: string, last: string) =>
  (last.trim() === '' ? first.trim() : `${first.trim()} ${last.trim()}`).slice(0, 200);
/** Optional text: trimmed, and null when absent or blank. */
export const optionalText = (value: string | null | undefined) => value?.trim() || null;

function conflictError(kind: 'email' | 'external_id', value: string | null): AppError {
  return kind === 'email'
    ? new AppError('email_taken', `A user with the e-mail "${value}" already exists in this collection.`, { param: 'email' })
    : new AppError('external_id_taken', `A user with the external_id "${value}" already exists in this collection.`, {
        param: 'external_id',
      });
}

/** One create body → a row, or the list of everything wrong with it. */
function prepareUser(
  input: unknown,
  definitions: CustomField[],
  collectionId: string,
  now: string,
  position: number,
): { row: UserRow } | { issues: Issue[] } {
  const shape = shapeIssues(input, (errors) => {
    const error = validationError(errors, 'body');
    return { field: error.param ?? 'body', code: String(error.code), message: error.message };
  });
  if (shape.length > 0) return { issues: shape };
  const body = input as CreateUserBody;
  const issues: Issue[] = [];
  const email = normalizeUserEmail(body.email);
  if ('issue' in email) issues.push(email.issue);
  for (const field of ['first_name', 'display_name'] as const) {
    const value = body[field];
    const blank = value === undefined ? null : notBlank(value, field);
    if (blank) issues.push(blank);
  }
  const custom = checkCustomValues(definitions, {}, body.custom_fields);
  issues.push(...custom.issues);
  if (issues.length > 0 || 'issue' in email) return { issues };
  return {
    row: {
      id: newId(),
      collection_id: collectionId,
      email: body.email.trim(),
      email_normalized: email.ok,
      first_name: body.first_name.trim(),
      last_name: body.last_name?.trim() ?? '',
      display_name: body.display_name?.trim() ?? defaultDisplayName(body.first_name, body.last_name ?? ''),
      preferred_name: optionalText(body.preferred_name),
      pronouns: optionalText(body.pronouns),
      external_id: body.external_id ?? null,
      phonetic_spelling: optionalText(body.phonetic_spelling),
      custom_fields: JSON.stringify(custom.values),
      record_token: newRecordToken(),
      recording_status: 'none',
      review_note: null,
      import_position: position,
      mail_status: null,
      mail_error: null,
      mail_updated_at: null,
      invited_at: null,
      unsubscribed_at: null,
      field_sources: '{}',
      created_at: now,
      updated_at: now,
    },
  };
}

/**
 * Creates users in one transaction: all of them or none. Every row is checked first (shape,
 * custom fields, e-mail and external_id unique within the batch and the collection); any
 * problem fails the whole batch with `batch_invalid` and an `errors` list of
 * `{index, field, code, message}`. `member_count` grows by the number created.
 */
export async function createUsers(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  inputs: unknown[],
  options: { single?: boolean } = {},
): Promise<User[]> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const definitions = definitionsOf(collection);
  const now = deps.clock.now().toISOString();
  const rows: UserRow[] = [];
  const errors: ItemError[] = [];
  inputs.forEach((input, index) => {
    const prepared = prepareUser(input, definitions, collection.id, now, index);
    if ('issues' in prepared) errors.push(...prepared.issues.map((issue) => ({ index, ...issue })));
    else rows.push(prepared.row);
  });
  for (const row of rows) row.field_sources = newPersonSources(row, 'organiser', now);
  keepInputOrder(rows);
  if (errors.length === 0) errors.push(...(await duplicateErrors(deps.db.kysely, collection.id, rows)));
  if (errors.length > 0) {
    const first = errors[0] as ItemError;
    if (options.single) {
      if (first.code === 'email_taken' || first.code === 'external_id_taken') {
        throw conflictError(
          first.code === 'email_taken' ? 'email' : 'external_id',
          first.code === 'email_taken' ? (rows[0]?.email ?? null) : (rows[0]?.external_id ?? null),
        );
      }
      throw new AppError(first.code, first.message, { param: first.field });
    }
    const bad = new Set(errors.map((e) => e.index)).size;
    throw new AppError('batch_invalid', `${bad} of ${inputs.length} users have errors; nothing was created.`, { errors });
  }
  try {
    await withTransaction(deps, async ({ trx }) => {
      await insertUsers(trx, rows);
      await adjustMemberCount(trx, collection.id, rows.length);
    });
  } catch (error) {
    // Another request took the same e-mail or external_id between our check and our insert.
    const kind = uniqueViolation(error);
    if (kind) throw conflictError(kind, null);
    throw error;
  }
  return rows.map((row) => toUser(deps.config.baseUrl, row, false));
}

/**
 * Rows created by one request share `created_at`; their ids, sorted, are handed out in input
 * order, so ordering by `(created_at, id)` (the import order of the dashboard's reader, the
 * oldest-first people table) follows the order of the request or file.
 */
function keepInputOrder(rows: UserRow[]): void {
  const ids = rows.map((row) => row.id).sort();
  rows.forEach((row, index) => {
    row.id = ids[index] as string;
  });
}

async function duplicateErrors(db: Kysely<Database>, collectionId: string, rows: UserRow[]): Promise<ItemError[]> {
  const errors: ItemError[] = [];
  const seenEmail = new Map<string, number>();
  const seenExternal = new Map<string, number>();
  const taken = await findTakenIdentifiers(
    db,
    collectionId,
    rows.map((r) => r.email_normalized),
    rows.flatMap((r) => (r.external_id === null ? [] : [r.external_id])),
  );
  rows.forEach((row, index) => {
    const earlierEmail = seenEmail.get(row.email_normalized);
    if (taken.emails.has(row.email_normalized)) {
      errors.push({
        index,
        field: 'email',
        code: 'email_taken',
        message: `A user with the e-mail "${row.email}" already exists in this collection.`,
      });
    } else if (earlierEmail !== undefined) {
      errors.push({
        index,
        field: 'email',
        code: 'email_taken',
        message: `The e-mail "${row.email}" also appears at index ${earlierEmail}.`,
      });
    }
    seenEmail.set(row.email_normalized, seenEmail.get(row.email_normalized) ?? index);
    if (row.external_id === null) return;
    const earlierExternal = seenExternal.get(row.external_id);
    if (taken.externalIds.has(row.external_id)) {
      errors.push({
        index,
        field: 'external_id',
        code: 'external_id_taken',
        message: `A user with the external_id "${row.external_id}" already exists in this collection.`,
      });
    } else if (earlierExternal !== undefined) {
      errors.push({
        index,
        field: 'external_id',
        code: 'external_id_taken',
        message: `The external_id "${row.external_id}" also appears at index ${earlierExternal}.`,
      });
    }
    seenExternal.set(row.external_id, earlierExternal ?? index);
  });
  return errors;
}

/** Creates one user (201); a taken e-mail or external_id is a 409. */
export async function createUser(deps: UsersDeps, accountId: string, collectionId: string, input: CreateUserBody): Promise<User> {
  const [user] = await createUsers(deps, accountId, collectionId, [input], { single: true });
  return user as User;
}

async function requireUser(deps: UsersDeps, collectionId: string, userId: string): Promise<UserWithRecording> {
  const row = isUuid(userId) ? await findUser(deps.db.kysely, collectionId, userId) : undefined;
  if (!row) throw notFound('user', 'user_id');
  return row;
}

/** The user, or 404 when the collection or user is unknown, archived or another account's. */
export async function getUser(deps: UsersDeps, accountId: string, collectionId: string, userId: string): Promise<User> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  return withRecording(deps.config.baseUrl)(await requireUser(deps, collection.id, userId));
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
  return toPage(rows, limit, withRecording(deps.config.baseUrl));
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
  } else if (current.display_name === defaultDisplayName(current.first_name, current.last_name)) {
    changes.display_name = defaultDisplayName(first, last);
  }
  if (input.external_id !== undefined) changes.external_id = input.external_id;
  if (input.phonetic_spelling !== undefined) changes.phonetic_spelling = optionalText(input.phonetic_spelling);
  if (input.preferred_name !== undefined) changes.preferred_name = optionalText(input.preferred_name);
  if (input.pronouns !== undefined) changes.pronouns = optionalText(input.pronouns);
  if (input.custom_fields !== undefined) {
    const custom = checkCustomValues(definitionsOf(collection), JSON.parse(current.custom_fields), input.custom_fields);
    if (custom.issues[0]) throw fail(custom.issues[0]);
    changes.custom_fields = JSON.stringify(custom.values);
  }
  changes.updated_at = laterThan(deps.clock, current.updated_at);
  const changed = changedFields(current, { ...current, ...changes });
  if (changed.length === 0) return toUser(deps.config.baseUrl, current, current.recording_user_id !== null);
  changes.field_sources = JSON.stringify(stampSources(parseSources(current.field_sources), changed, writer, changes.updated_at));
  try {
    const row = await withTransaction(deps, async (tx) => {
      // The player page shows the names, pronouns and phonetic spelling from the cached link.
      tx.afterCommit(() => invalidatePlayLinksOfUser(deps, current.id));
      const updated = await updateUserRow(tx.trx, current.id, changes);
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
    return toUser(deps.config.baseUrl, row, current.recording_user_id !== null);
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
