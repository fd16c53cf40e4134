/**
 * Creating people, one (`POST .../users`) or a batch (all or none): every body is checked
 * first, e-mail and external_id must be unique within the batch and the collection, and
 * `member_count` grows in the same transaction as the insert.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { withTransaction } from '../../db/transaction.js';
import { AppError, type ItemError } from '../../errors.js';
import { validationError } from '../../http/validation.js';
import { newId } from '../../lib/ids.js';
import type { CustomField } from '../collections/schemas.js';
import { adjustMemberCount, requireLiveCollection } from '../collections/service.js';
import { findTakenIdentifiers, insertUsers, type UserRow, uniqueViolation } from './repo.js';
import { queueGuides } from '../pronunciation/generate-job.js';
import { type FieldSource, newPersonSources } from './provenance.js';
import type { CreateUserBody, User } from './schemas.js';
import {
  conflictError,
  defaultDisplayName,
  definitionsOf,
  newRecordToken,
  optionalText,
  toUser,
  type UsersDeps,
} from './service.js';
import { canonicalLanguage } from '../../lib/languages.js';
import {
  checkCustomValues,
  type Issue,
  LANGUAGE_FIELDS,
  languageIssue,
  personLanguageIssue,
  personLanguageOf,
  normalizeUserEmail,
  notBlank,
  shapeIssues,
} from './validate.js';

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
  for (const field of LANGUAGE_FIELDS) {
    const issue = languageIssue(body[field], field);
    if (issue) issues.push(issue);
  }
  const language = personLanguageIssue(body.language);
  if (language) issues.push(language);
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
      display_name: body.display_name?.trim() ?? defaultDisplayName(body.first_name, body.last_name ?? '', body.name_order),
      preferred_name: optionalText(body.preferred_name),
      pronouns: optionalText(body.pronouns),
      external_id: body.external_id ?? null,
      phonetic_spelling: optionalText(body.phonetic_spelling),
      name_language: canonicalLanguage(body.name_language),
      given_name_language: canonicalLanguage(body.given_name_language),
      family_name_language: canonicalLanguage(body.family_name_language),
      language: personLanguageOf(body.language),
      custom_fields: JSON.stringify(custom.values),
      record_token: newRecordToken(),
      recording_status: 'none',
      review_note: null,
      listened_at: null,
      listened_by: null,
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
  options: { single?: boolean; writer?: FieldSource } = {},
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
  for (const row of rows) row.field_sources = newPersonSources(row, options.writer ?? 'organiser', now);
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
    await withTransaction(deps, async (tx) => {
      await insertUsers(tx.trx, rows);
      await adjustMemberCount(tx.trx, collection.id, rows.length);
      await queueGuides(
        tx,
        rows.map((row) => row.id),
      );
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
