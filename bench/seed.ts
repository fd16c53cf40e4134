/**
 * Seeds `count` people with a recording and an active play link each, straight into the database
 * (no audio processing: the rows point at audio files that need not exist, since the benchmarks
 * measure the redirect and the lookups). The account must exist already.
 */
import type { Deps } from '../src/deps.js';
import { newId, randomToken } from '../src/lib/ids.js';

export async function seedPlayLinks(
  deps: Deps,
  TOKENS: number,
): Promise<{ collectionId: string; tokens: string[]; userIds: string[] }> {
  const db = deps.db.kysely;
  const account = await db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();
  const now = new Date().toISOString();
  const collectionId = newId();
  await db
    .insertInto('collections')
    .values({
      id: collectionId,
      account_id: account.id,
      name: 'Bench',
      description: null,
      custom_fields: '[]',
      created_at: now,
      updated_at: now,
      archived_at: null,
    })
    .execute();
  const tokens: string[] = [];
  const userIds: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < TOKENS; start += 200) {
      const users = [];
      const recordings = [];
      const links = [];
      for (let i = start; i < Math.min(TOKENS, start + 200); i++) {
        const id = newId();
        const token = randomToken(12);
        const sha = randomToken(32)
          .replace(/[^a-f0-9]/gi, '0')
          .toLowerCase()
          .padEnd(64, '0')
          .slice(0, 64);
        userIds.push(id);
        tokens.push(token);
        users.push({
          id,
          collection_id: collectionId,
          email: `u${i}@example.com`,
          email_normalized: `u${i}@example.com`,
          first_name: 'User',
          last_name: String(i),
          display_name: `User ${i}`,
          external_id: null,
          phonetic_spelling: null,
          custom_fields: '{}',
          record_token: randomToken(12),
          recording_status: 'recorded' as const,
          review_note: null,
          import_position: 0,
          field_sources: '{}',
          created_at: now,
          updated_at: now,
        });
        recordings.push({
          user_id: id,
          blob_key: `recordings/${id}/${sha}.mp3`,
          mime_type: 'audio/mpeg',
          byte_size: 12000,
          duration_ms: 1300,
          recorded_at: now,
        });
        links.push({ token, user_id: id, status: 'active' as const, created_at: now, retired_at: null });
      }
      await trx.insertInto('users').values(users).execute();
      await trx.insertInto('recordings').values(recordings).execute();
      await trx.insertInto('play_links').values(links).execute();
    }
  });
  return { collectionId, tokens, userIds };
}
