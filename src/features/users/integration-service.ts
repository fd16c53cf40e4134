/**
 * People an identity provider manages (SCIM, src/features/scim): the person of a provisioned
 * identity in one collection is created or linked, kept in step under the provenance rule (an
 * `integration` write never replaces what the person corrected themselves), suspended while the
 * identity is deactivated, and deleted through the same path as any person (erasure included).
 */
import { withTransaction } from '../../db/transaction.js';
import { AppError } from '../../errors.js';
import { laterThan } from '../../lib/clock.js';
import { invalidatePlayLinksOfUser } from '../play-links/index.js';
import { queueGuides } from '../pronunciation/generate-job.js';
import { recordEvent } from '../events/service.js';
import { requireLiveCollection } from '../collections/service.js';
import { createUsers } from './create-service.js';
import { applyBulkWrite } from './provenance.js';
import { findUser, findUsersByIdentifiers, uniqueViolation, updateUserRow, type UserRow } from './repo.js';
import { conflictError, deleteUser, defaultDisplayName, type UsersDeps } from './service.js';
import { normalizeUserEmail } from './validate.js';

/** What an identity provider says about a person. */
export interface ProvisionedPerson {
  /** Stored as the person's `external_id`: how the integration finds them again. */
  externalId: string;
  email: string;
  firstName: string;
  lastName: string;
  displayName: string | null;
  suspended: boolean;
}

const GUIDE_NAME_FIELDS = ['first_name', 'last_name', 'display_name'];

function checkedEmail(email: string): string {
  const normalized = normalizeUserEmail(email);
  if ('issue' in normalized) throw new AppError('parameter_invalid', `"${email}" is not an e-mail address a person can have.`);
  return normalized.ok;
}

/**
 * The person of `identity` in the collection: the one whose `external_id` is the identity's, else
 * the one with its e-mail (linked from now on), else a new one. Returns the person's id.
 */
export async function provisionPerson(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  identity: ProvisionedPerson,
): Promise<string> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const emailKey = checkedEmail(identity.email);
  const found = await findUsersByIdentifiers(deps.db.kysely, collection.id, [emailKey], [identity.externalId]);
  const existing = found.find((row) => row.external_id === identity.externalId) ?? found[0];
  if (existing) {
    await syncPerson(deps, accountId, existing, identity);
    return existing.id;
  }
  const [created] = await createUsers(
    deps,
    accountId,
    collection.id,
    [
      {
        email: identity.email.trim(),
        first_name: identity.firstName,
        last_name: identity.lastName,
        ...(identity.displayName ? { display_name: identity.displayName } : {}),
        external_id: identity.externalId,
      },
    ],
    { single: true, writer: 'integration' },
  );
  const id = (created as { id: string }).id;
  if (identity.suspended) await updateUserRow(deps.db.kysely, id, { provisioning_suspended_at: deps.clock.now().toISOString() });
  return id;
}

/** Applies the identity's current values to these people (each in its collection); gone ones are skipped. */
export async function syncProvisionedPeople(
  deps: UsersDeps,
  accountId: string,
  people: { collectionId: string; personId: string }[],
  identity: ProvisionedPerson,
): Promise<void> {
  for (const { collectionId, personId } of people) {
    const row = await findUser(deps.db.kysely, collectionId, personId);
    if (row) await syncPerson(deps, accountId, row, identity);
  }
}

async function syncPerson(deps: UsersDeps, accountId: string, current: UserRow, identity: ProvisionedPerson): Promise<void> {
  const updatedAt = laterThan(deps.clock, current.updated_at);
  const next: UserRow = {
    ...current,
    email: identity.email.trim(),
    email_normalized: checkedEmail(identity.email),
    first_name: identity.firstName,
    last_name: identity.lastName,
    display_name: identity.displayName ?? defaultDisplayName(identity.firstName, identity.lastName),
    external_id: identity.externalId,
    updated_at: updatedAt,
  };
  // What the person set themselves is kept: the provenance rule of every bulk write.
  const { changes } = applyBulkWrite(current, next, { row: 0, writer: 'integration', overwrite: false });
  const suspendedAt = identity.suspended ? (current.provisioning_suspended_at ?? updatedAt) : null;
  const suspensionChanges = (current.provisioning_suspended_at ?? null) !== suspendedAt;
  if (changes.length === 0 && !suspensionChanges) return;
  await withTransaction(deps, async (tx) => {
    tx.afterCommit(() => invalidatePlayLinksOfUser(deps, current.id));
    await updateUserRow(tx.trx, current.id, {
      email: next.email,
      email_normalized: next.email_normalized,
      first_name: next.first_name,
      last_name: next.last_name,
      display_name: next.display_name,
      external_id: next.external_id,
      field_sources: next.field_sources,
      updated_at: updatedAt,
      provisioning_suspended_at: suspendedAt,
    });
    if (changes.some((change) => GUIDE_NAME_FIELDS.includes(change.field))) await queueGuides(tx, [current.id]);
    if (changes.length === 0) return;
    // Webhook receivers hear of it as of any other change, said to come from the integration.
    await recordEvent(tx, {
      accountId,
      type: 'user.updated',
      data: {
        collection_id: current.collection_id,
        user_id: current.id,
        external_id: next.external_id,
        changed_fields: changes.map((change) => change.field),
        updated_by: 'integration',
        updated_at: updatedAt,
      },
      at: new Date(updatedAt),
    });
  }).catch((error: unknown) => {
    // Another person of the collection has the new e-mail (or external_id): a conflict, not a failure.
    const kind = uniqueViolation(error);
    if (kind) throw conflictError(kind, kind === 'email' ? next.email : next.external_id);
    throw error;
  });
}

/** Deletes the person (recording, play links, audio, traces: the erasure of a deleted person); gone already is fine. */
export async function removeProvisionedPerson(deps: UsersDeps, accountId: string, collectionId: string, personId: string) {
  try {
    await deleteUser(deps, accountId, collectionId, personId);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) return;
    throw error;
  }
}
