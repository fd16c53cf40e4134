import type { Db } from '../../db/index.js';
import { type TransactionDeps, withTransaction } from '../../db/transaction.js';
import type { Config } from '../../config.js';
import type { Deps as AppDeps } from '../../deps.js';
import { AppError, notFound } from '../../errors.js';
import { type Clock, isoNow, laterThan } from '../../lib/clock.js';
import { isUuid, newId } from '../../lib/ids.js';
import { DEFAULT_LOCALE, isLocale } from '../../i18n/index.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { invalidateAllPlayLinks } from '../play-links/invalidation.js';
import { checkBrandColor } from './brand-color.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  addToMemberCount,
  addToRecordedCount,
  archiveLiveCollection,
  type CollectionRow,
  countLiveCollections,
  findLiveCollection,
  insertCollection,
  listLiveCollections,
  recountRecorded,
  removeCustomFieldValues,
  restoreArchivedCollection,
  updateLiveCollection,
} from './repo.js';
import {
  type Collection,
  type CreateCollectionBody,
  type CustomField,
  INVITATION_PLACEHOLDERS,
  type RecordingStatus,
  type UpdateCollectionBody,
} from './schemas.js';

export type { CollectionRow } from './repo.js';

type Deps = { db: Db; clock: Clock; config: Pick<Config, 'baseUrl'> };

/** The public URL of a collection's logo: content-addressed, so it can be cached for ever. */
export const logoUrl = (baseUrl: string, logoKey: string | null): string | null =>
  logoKey === null ? null : `${baseUrl}/${logoKey}`;

export function toCollection(row: CollectionRow, baseUrl: string): Collection {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    custom_fields: JSON.parse(row.custom_fields) as CustomField[],
    member_count: Number(row.member_count),
    recorded_count: Number(row.recorded_count),
    review_required: Number(row.review_required) === 1,
    deadline: row.deadline,
    language: isLocale(row.language) ? row.language : DEFAULT_LOCALE,
    self_edit: Number(row.self_edit) === 1,
    branding: {
      organisation_name: row.organisation_name,
      intro: row.intro,
      privacy_note: row.privacy_note,
      logo_url: logoUrl(baseUrl, row.logo_key),
      brand_color: row.brand_color,
    },
    invitation_settings: {
      reminders: JSON.parse(row.reminder_days) as number[],
      sender_name: row.sender_name,
      reply_to: row.reply_to,
      message: row.invitation_message,
      reminder_message: row.reminder_message,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

type SettingsInput = Pick<CreateCollectionBody, 'deadline' | 'language' | 'self_edit' | 'branding' | 'invitation_settings'>;
type SettingsColumns = Partial<
  Pick<
    CollectionRow,
    | 'deadline'
    | 'language'
    | 'self_edit'
    | 'organisation_name'
    | 'intro'
    | 'privacy_note'
    | 'brand_color'
    | 'reminder_days'
    | 'sender_name'
    | 'reply_to'
    | 'invitation_message'
    | 'reminder_message'
  >
>;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The placeholders a message uses that are not ours (a typo would otherwise reach every inbox as text). */
export const unknownPlaceholders = (message: string): string[] =>
  [...message.matchAll(PLACEHOLDER)]
    .map((m) => m[1] ?? '')
    .filter((name) => !(INVITATION_PLACEHOLDERS as readonly string[]).includes(name));

/**
 * The settings columns a create or update writes, checked beyond the schema: a real calendar
 * date, reminders only with a deadline, known placeholders only. `current` is the row being
 * updated (undefined on create), so a change is checked against what it leaves.
 */
function settingsColumns(input: SettingsInput, current?: CollectionRow): SettingsColumns {
  if (input.deadline) checkCalendarDate(input.deadline);
  for (const [field, what] of [
    ['message', 'invitation'],
    ['reminder_message', 'reminder'],
  ] as const) {
    const unknown = unknownPlaceholders(input.invitation_settings?.[field] ?? '');
    if (unknown.length > 0) {
      throw new AppError(
        'parameter_invalid',
        `Unknown placeholder {{${unknown[0]}}} in the ${what} message. Use ${INVITATION_PLACEHOLDERS.map((p) => `{{${p}}}`).join(', ')}.`,
        { param: `invitation_settings.${field}` },
      );
    }
  }
  const reminders = input.invitation_settings?.reminders;
  const deadline = input.deadline === undefined ? (current?.deadline ?? null) : input.deadline;
  const remindersAfter = reminders ?? (current ? (JSON.parse(current.reminder_days) as number[]) : []);
  if (remindersAfter.length > 0 && deadline === null) {
    throw new AppError('parameter_invalid', 'Reminders count back from the deadline: set "deadline" too, or no reminders.', {
      param: reminders ? 'invitation_settings.reminders' : 'deadline',
    });
  }
  const { branding, invitation_settings: mail } = input;
  const columns: SettingsColumns = {
    deadline: input.deadline,
    language: input.language,
    self_edit: input.self_edit === undefined ? undefined : input.self_edit ? 1 : 0,
    organisation_name: branding?.organisation_name,
    intro: branding?.intro,
    privacy_note: branding?.privacy_note,
    brand_color: branding?.brand_color === undefined ? undefined : checkBrandColor(branding.brand_color),
    reminder_days: reminders === undefined ? undefined : JSON.stringify([...reminders].sort((a, b) => b - a)),
    sender_name: mail?.sender_name,
    reply_to: mail?.reply_to,
    invitation_message: mail?.message,
    reminder_message: mail?.reminder_message,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
}

function checkCalendarDate(date: string): void {
  const parsed = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== date) {
    throw new AppError('parameter_invalid', `Invalid field "deadline": ${date} is not a calendar date.`, { param: 'deadline' });
  }
}

/** Rules the JSON schema cannot say: unique keys, and options exactly for `select` fields. */
export function checkCustomFields(fields: CustomField[]): CustomField[] {
  const seen = new Set<string>();
  return fields.map((field, index) => {
    const param = `custom_fields[${index}]`;
    if (seen.has(field.key))
      throw new AppError('parameter_invalid', `Duplicate custom field key "${field.key}".`, { param: `${param}.key` });
    seen.add(field.key);
    if (field.type === 'select') {
      if (!field.options)
        throw new AppError('parameter_missing', `Custom field "${field.key}" of type select needs "options".`, {
          param: `${param}.options`,
        });
      if (new Set(field.options).size !== field.options.length) {
        throw new AppError('parameter_invalid', `Custom field "${field.key}" has duplicate options.`, {
          param: `${param}.options`,
        });
      }
    } else if (field.options !== undefined) {
      throw new AppError('parameter_invalid', `Only select fields take "options" (field "${field.key}" is ${field.type}).`, {
        param: `${param}.options`,
      });
    }
    return {
      key: field.key,
      label: field.label,
      type: field.type,
      required: field.required ?? false,
      ...(field.options ? { options: field.options } : {}),
    };
  });
}

function checkName(name: string): string {
  if (name.trim() === '') throw new AppError('parameter_invalid', 'Invalid field "name": must not be blank.', { param: 'name' });
  return name;
}

/** Creates a collection for the account; counts start at zero, `custom_fields` at `[]`. */
export async function createCollection(deps: Deps, accountId: string, input: CreateCollectionBody): Promise<Collection> {
  const now = isoNow(deps.clock);
  const row: CollectionRow = {
    id: newId(),
    account_id: accountId,
    name: checkName(input.name),
    description: input.description ?? null,
    custom_fields: JSON.stringify(checkCustomFields(input.custom_fields ?? [])),
    member_count: 0,
    recorded_count: 0,
    review_required: input.review_required ? 1 : 0,
    created_at: now,
    updated_at: now,
    archived_at: null,
    deadline: null,
    language: DEFAULT_LOCALE,
    self_edit: 1,
    organisation_name: null,
    intro: null,
    privacy_note: null,
    logo_key: null,
    brand_color: null,
    reminder_days: '[]',
    sender_name: null,
    reply_to: null,
    invitation_message: null,
    reminder_message: null,
    ...settingsColumns(input),
  };
  await insertCollection(deps.db.kysely, row);
  return toCollection(row, deps.config.baseUrl);
}

/** The account's live collection, or 404 (also for archived ones, other accounts' and malformed ids). */
export async function getCollection(deps: Deps, accountId: string, id: string): Promise<Collection> {
  return toCollection(await requireLiveCollection(deps, accountId, id), deps.config.baseUrl);
}

export async function requireLiveCollection(deps: { db: Db }, accountId: string, id: string): Promise<CollectionRow> {
  const row = isUuid(id) ? await findLiveCollection(deps.db.kysely, accountId, id) : undefined;
  if (!row) throw notFound('collection', 'collection_id');
  return row;
}

/** A page of live collections, newest first. */
export async function listCollections(deps: Deps, accountId: string, query: { limit?: number; cursor?: string }) {
  const limit = query.limit ?? 50;
  const rows = await listLiveCollections(deps.db.kysely, accountId, decodeCursor(query.cursor), limit + 1);
  return toPage(rows, limit, (row) => toCollection(row, deps.config.baseUrl));
}

/** How many live collections the account has (the dashboard's overview). */
export const countCollections = (deps: { db: Db }, accountId: string): Promise<number> =>
  countLiveCollections(deps.db.kysely, accountId);

/**
 * Changes name, description, `review_required` and/or the custom field definitions;
 * `updated_at` always moves forward. Switching review on or off recounts `recorded_count` under
 * the new rule in the same transaction. New definitions replace the list: a field that stays
 * keeps its `key` and `type` (a type change is refused: remove the field and add one with a new
 * key) and its stored values; the values of removed fields are deleted from every user in the
 * same transaction. Making a field required does not touch people without a value: their next
 * write must supply it.
 */
export async function updateCollection(
  deps: Deps & TransactionDeps & Pick<AppDeps, 'playLinks'>,
  accountId: string,
  id: string,
  input: UpdateCollectionBody,
): Promise<Collection> {
  const current = await requireLiveCollection(deps, accountId, id);
  const updatedAt = laterThan(deps.clock, current.updated_at);
  const definitions = input.custom_fields === undefined ? undefined : checkDefinitionChanges(current, input.custom_fields);
  const removed = definitions === undefined ? [] : removedKeys(current, definitions);
  const changes = {
    ...(input.name === undefined ? {} : { name: checkName(input.name) }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.review_required === undefined ? {} : { review_required: input.review_required ? 1 : 0 }),
    ...(definitions === undefined ? {} : { custom_fields: JSON.stringify(definitions) }),
    ...settingsColumns(input, current),
    updated_at: updatedAt,
  };
  // The player page, the embed and the preview images show the collection's name, language and branding.
  const shownOnPlayLinks = input.name !== undefined || input.language !== undefined || input.branding !== undefined;
  const row = await withTransaction(deps, async ({ trx, afterCommit }) => {
    if (shownOnPlayLinks) afterCommit(() => invalidateAllPlayLinks(deps));
    // This statement takes the collection's row lock: recordings and reviews that change the
    // count wait for it, and the recount below (a new statement, so a fresh snapshot on
    // PostgreSQL) sees every one that committed before.
    const updated = await updateLiveCollection(trx, accountId, id, changes);
    if (!updated) return updated;
    await removeCustomFieldValues(trx, deps.db.dialect, id, removed, updatedAt);
    if (input.review_required === undefined) return updated;
    return recountRecorded(trx, id, countedStatuses(input.review_required));
  });
  if (!row) throw notFound('collection', 'collection_id');
  return toCollection(row, deps.config.baseUrl);
}

const definitionsOf = (row: CollectionRow) => JSON.parse(row.custom_fields) as CustomField[];

function checkDefinitionChanges(current: CollectionRow, fields: CustomField[]): CustomField[] {
  const checked = checkCustomFields(fields);
  const before = new Map(definitionsOf(current).map((d) => [d.key, d]));
  checked.forEach((field, index) => {
    const previous = before.get(field.key);
    if (previous && previous.type !== field.type) {
      throw new AppError(
        'parameter_invalid',
        `Custom field "${field.key}" is ${previous.type}; its type cannot change. Remove it and add a field with another key.`,
        { param: `custom_fields[${index}].type` },
      );
    }
  });
  return checked;
}

function removedKeys(current: CollectionRow, next: CustomField[]): string[] {
  const kept = new Set(next.map((d) => d.key));
  return definitionsOf(current)
    .map((d) => d.key)
    .filter((key) => !kept.has(key));
}

/** Archives (soft-deletes) the collection: data is kept, but it is gone from the API. */
export async function archiveCollection(deps: Deps & Pick<AppDeps, 'playLinks'>, accountId: string, id: string) {
  if (!isUuid(id) || !(await archiveLiveCollection(deps.db.kysely, accountId, id, isoNow(deps.clock)))) {
    throw notFound('collection', 'collection_id');
  }
  // Play links of an archived collection stop resolving; drop them from this process's cache now.
  invalidateAllPlayLinks(deps);
  return { deleted: true as const, id };
}

/**
 * Brings back an archived collection within the retention window: its people, recordings and
 * play links work again (their caches are dropped in every process). A live collection is
 * answered as it is; an erased one (or another account's) is 404.
 */
export async function restoreCollection(
  deps: Deps & Pick<AppDeps, 'playLinks' | 'notifications'>,
  accountId: string,
  id: string,
) {
  if (!isUuid(id)) throw notFound('collection', 'collection_id');
  const restored = await restoreArchivedCollection(deps.db.kysely, accountId, id, isoNow(deps.clock));
  if (restored) {
    invalidateAllPlayLinks(deps);
    return toCollection(restored, deps.config.baseUrl);
  }
  return getCollection(deps, accountId, id);
}

/**
 * Moves the collection's member counter by `delta`, inside the caller's transaction (the users
 * feature calls this in the same transaction as the change counted). `recorded_count` moves
 * with recording statuses: `countRecordingStatusChange`.
 */
export const adjustMemberCount = (trx: Kysely<Database>, collectionId: string, delta: number) =>
  addToMemberCount(trx, collectionId, delta);

/** The recording statuses that count as recorded under a collection's review setting. */
export const countedStatuses = (reviewRequired: boolean): RecordingStatus[] =>
  reviewRequired ? ['approved'] : ['recorded', 'approved', 'needs_rerecord'];

const counts = (status: RecordingStatus, reviewRequired: boolean) => (countedStatuses(reviewRequired).includes(status) ? 1 : 0);

/**
 * Moves `recorded_count` for one person (or `people` people) whose recording status goes from
 * `from` to `to`, inside the caller's transaction (which holds those people's row locks). The
 * delta follows the collection's review setting as committed when the counter row is locked.
 */
export async function countRecordingStatusChange(
  trx: Kysely<Database>,
  collectionId: string,
  from: RecordingStatus,
  to: RecordingStatus,
  people = 1,
): Promise<void> {
  const delta = {
    withReview: (counts(to, true) - counts(from, true)) * people,
    withoutReview: (counts(to, false) - counts(from, false)) * people,
  };
  if (delta.withReview === 0 && delta.withoutReview === 0) return;
  await addToRecordedCount(trx, collectionId, delta);
}
