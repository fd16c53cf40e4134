/**
 * People written by a roster sync (an LTI course's members): each member is matched by their
 * external id (the platform's user id), else by e-mail, then created or updated in one
 * transaction. Updates are bulk writes by the `integration`: a field the person corrected
 * themselves keeps their value (provenance.ts). Nobody is sent anything.
 */
import { withTransaction } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import { normalizeEmail } from '../accounts/service.js';
import { adjustMemberCount, requireLiveCollection } from '../collections/service.js';
import { queueGuides } from '../pronunciation/generate-job.js';
import { applyBulkWrite, newPersonSources } from './provenance.js';
import { findUsersByIdentifiers, insertUsers, type UserRow, updateUserRows } from './repo.js';
import { defaultDisplayName, newRecordToken, type UsersDeps } from './service.js';

export interface RosterMember {
  /** The platform's user id, stored as the person's `external_id`. */
  externalId: string;
  givenName: string;
  familyName: string;
  /** Null when the platform shares none: the person gets an address under `.invalid` (RFC 2606), which no mail reaches. */
  email: string | null;
}

export interface RosterPerson {
  userId: string;
  externalId: string;
  recordToken: string;
}

/** An address for a member without one: unique per platform user, never deliverable. */
const placeholderEmail = (externalId: string) => `lti-${sha256Hex(externalId).slice(0, 32)}@roster.invalid`;

function emailOf(member: RosterMember): { email: string; normalized: string } {
  if (member.email) {
    try {
      return { email: member.email.trim(), normalized: normalizeEmail(member.email) };
    } catch {}
  }
  const email = placeholderEmail(member.externalId);
  return { email, normalized: email };
}

function firstName(member: RosterMember): string {
  return member.givenName.trim() || member.familyName.trim() || member.externalId;
}

/**
 * Creates or updates the members as people of the collection; answers each member's person.
 * A member whose e-mail belongs to a person with another external id is left out (reported in `skipped`).
 */
export async function upsertRosterPeople(
  deps: UsersDeps,
  accountId: string,
  collectionId: string,
  members: RosterMember[],
): Promise<{ people: RosterPerson[]; created: number; updated: number; skipped: string[] }> {
  const collection = await requireLiveCollection(deps, accountId, collectionId);
  const now = deps.clock.now().toISOString();
  const emails = members.map((member) => emailOf(member).normalized);
  const existing = await findUsersByIdentifiers(
    deps.db.kysely,
    collection.id,
    emails,
    members.map((member) => member.externalId),
  );
  const byExternal = new Map(existing.filter((row) => row.external_id !== null).map((row) => [row.external_id as string, row]));
  const byEmail = new Map(existing.map((row) => [row.email_normalized, row]));
  const inserts: UserRow[] = [];
  const updates: UserRow[] = [];
  const people: RosterPerson[] = [];
  const skipped: string[] = [];
  members.forEach((member, index) => {
    const { email, normalized } = emailOf(member);
    const sameEmail = byEmail.get(normalized);
    const target = byExternal.get(member.externalId) ?? (sameEmail?.external_id === null ? sameEmail : undefined);
    if (!target && sameEmail) {
      skipped.push(member.externalId);
      return;
    }
    const first = firstName(member);
    const last = member.givenName.trim() ? member.familyName.trim() : '';
    if (target) {
      const next: UserRow = {
        ...target,
        external_id: member.externalId,
        first_name: first,
        last_name: last,
        // A display name that followed the names keeps following them; one someone wrote stays.
        display_name:
          target.display_name === defaultDisplayName(target.first_name, target.last_name)
            ? defaultDisplayName(first, last)
            : target.display_name,
        ...(member.email ? { email, email_normalized: normalized } : {}),
        updated_at: now,
      };
      const { changes } = applyBulkWrite(target, next, { row: index, writer: 'integration', overwrite: false });
      if (changes.length > 0) updates.push(next);
      people.push({ userId: target.id, externalId: member.externalId, recordToken: target.record_token });
      return;
    }
    const row: UserRow = {
      id: newId(),
      collection_id: collection.id,
      email,
      email_normalized: normalized,
      first_name: first,
      last_name: last,
      display_name: defaultDisplayName(first, last),
      preferred_name: null,
      pronouns: null,
      external_id: member.externalId,
      phonetic_spelling: null,
      name_language: null,
      given_name_language: null,
      family_name_language: null,
      language: null,
      custom_fields: '{}',
      record_token: newRecordToken(),
      recording_status: 'none',
      review_note: null,
      listened_at: null,
      listened_by: null,
      import_position: index,
      mail_status: null,
      mail_error: null,
      mail_updated_at: null,
      invited_at: null,
      unsubscribed_at: null,
      field_sources: '{}',
      created_at: now,
      updated_at: now,
    };
    row.field_sources = newPersonSources(row, 'integration', now);
    inserts.push(row);
    byExternal.set(member.externalId, row);
    byEmail.set(normalized, row);
    people.push({ userId: row.id, externalId: member.externalId, recordToken: row.record_token });
  });
  if (inserts.length > 0 || updates.length > 0) {
    await withTransaction(deps, async (tx) => {
      await insertUsers(tx.trx, inserts);
      await updateUserRows(tx.trx, updates);
      if (inserts.length > 0) await adjustMemberCount(tx.trx, collection.id, inserts.length);
      await queueGuides(
        tx,
        inserts.map((row) => row.id),
      );
    });
  }
  return { people, created: inserts.length, updated: updates.length, skipped };
}
