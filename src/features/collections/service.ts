import type { Db } from '../../db/index.js';
import { type TransactionDeps, withTransaction } from '../../db/transaction.js';
import type { Deps as AppDeps } from '../../deps.js';
import { AppError, notFound } from '../../errors.js';
import { type Clock, isoNow, laterThan } from '../../lib/clock.js';
import { isUuid, newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { invalidateAllPlayLinks } from '../play-links/invalidation.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import {
  addToCollectionCounts,
  archiveLiveCollection,
  type CollectionRow,
  findLiveCollection,
  insertCollection,
  listLiveCollections,
  removeCustomFieldValues,
  updateLiveCollection,
} from './repo.js';
import type { Collection, CreateCollectionBody, CustomField, UpdateCollectionBody } from './schemas.js';

export type { CollectionRow } from './repo.js';

type Deps = { db: Db; clock: Clock };

export function toCollection(row: CollectionRow): Collection {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    custom_fields: JSON.parse(row.custom_fields) as CustomField[],
    member_count: Number(row.member_count),
    recorded_count: Number(row.recorded_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
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
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
  await insertCollection(deps.db.kysely, row);
  return toCollection(row);
}

/** The account's live collection, or 404 (also for archived ones, other accounts' and malformed ids). */
export async function getCollection(deps: Deps, accountId: string, id: string): Promise<Collection> {
  return toCollection(await requireLiveCollection(deps, accountId, id));
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
  return toPage(rows, limit, toCollection);
}

/**
 * Changes name, description and/or the custom field definitions; `updated_at` always moves
 * forward. New definitions replace the list: a field that stays keeps its `key` and `type` (a
 * type change is refused: remove the field and add one with a new key) and its stored values;
 * the values of removed fields are deleted from every user in the same transaction. Making a
 * field required does not touch people without a value: their next write must supply it.
 */
export async function updateCollection(
  deps: Deps & TransactionDeps,
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
    ...(definitions === undefined ? {} : { custom_fields: JSON.stringify(definitions) }),
    updated_at: updatedAt,
  };
  const row = await withTransaction(deps, async ({ trx }) => {
    const updated = await updateLiveCollection(trx, accountId, id, changes);
    if (updated) await removeCustomFieldValues(trx, deps.db.dialect, id, removed, updatedAt);
    return updated;
  });
  if (!row) throw notFound('collection', 'collection_id');
  return toCollection(row);
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
 * Moves the collection's member and recorded counters by `delta`, inside the caller's transaction
 * (the users and recordings features call this in the same transaction as the change counted).
 */
export const adjustCollectionCounts = (
  trx: Kysely<Database>,
  collectionId: string,
  delta: { members?: number; recorded?: number },
) => addToCollectionCounts(trx, collectionId, delta);
