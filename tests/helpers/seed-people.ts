/**
 * Many people in one collection, straight into the database in one transaction (no API, no
 * events): for tests of how the people table behaves at size. Person `i` is `Person <i>`,
 * `person<i>@example.com`, created `i` ms after a fixed instant (so newest first is the reverse
 * of `i`); `named` gives chosen people other names.
 */
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../src/deps.js';
import { insertUsers, type UserRow } from '../../src/features/users/repo.js';

export async function seedPeople(
  deps: Deps,
  collectionId: string,
  count: number,
  named: Record<number, { name: string; email?: string }> = {},
): Promise<string[]> {
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  const ids: string[] = [];
  const rows: UserRow[] = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    ids.push(id);
    const at = new Date(base + i).toISOString();
    const name = named[i]?.name ?? `Person ${i}`;
    const email = named[i]?.email ?? `person${i}@example.com`;
    rows.push({
      id,
      collection_id: collectionId,
      email,
      email_normalized: email.toLowerCase(),
      first_name: name,
      last_name: '',
      display_name: name,
      preferred_name: null,
      pronouns: null,
      external_id: null,
      phonetic_spelling: null,
      custom_fields: '{}',
      field_sources: '{}',
      record_token: randomUUID().replace(/-/g, ''),
      recording_status: 'none',
      review_note: null,
      listened_at: null,
      listened_by: null,
      import_position: i,
      created_at: at,
      updated_at: at,
      mail_status: null,
      mail_error: null,
      mail_updated_at: null,
      invited_at: null,
      unsubscribed_at: null,
      name_language: null,
      given_name_language: null,
      family_name_language: null,
      language: null,
    });
  }
  await deps.db.kysely.transaction().execute((trx) => insertUsers(trx, rows));
  return ids;
}
