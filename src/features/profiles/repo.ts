/** Every query of published profiles (the `entities` table) but the owner's changes (src/features/profile-ownership). */
import type { Kysely } from 'kysely';
import type { Database, EntitiesTable } from '../../db/schema.js';
import { confusableSkeleton } from '../../lib/confusables.js';

type Q = Kysely<Database>;
export type EntityRow = EntitiesTable;

/**
 * The slug of the profile holding this name: the same slug, or one with the same confusable
 * skeleton (a look-alike); null when the name is free. Deleted profiles keep holding theirs.
 */
export async function nameHolder(db: Q, slug: string): Promise<string | null> {
  const row = await db
    .selectFrom('entities')
    .select('slug')
    .where((eb) => eb.or([eb('slug', '=', slug), eb('name_skeleton', '=', confusableSkeleton(slug))]))
    .orderBy('created_at')
    .executeTakeFirst();
  return row?.slug ?? null;
}

export const insertEntity = (db: Q, row: EntityRow) => db.insertInto('entities').values(row).execute();

export const findEntityBySlug = (db: Q, slug: string) =>
  db.selectFrom('entities').selectAll().where('slug', '=', slug).executeTakeFirst();

export const findEntityById = (db: Q, id: string) =>
  db.selectFrom('entities').selectAll().where('id', '=', id).executeTakeFirst();

/** Deletion keeps a tombstone (the slug stays reserved, so the URL answers 410) and wipes the rest. */
export async function markEntityDeleted(db: Q, input: { id: string; now: string }) {
  const result = await db
    .updateTable('entities')
    .set((eb) => ({
      deleted_at: input.now,
      name: eb.ref('slug'),
      description: '',
      operator: '',
      avatar_url: null,
      source_url: null,
      intro: null,
      external_metadata: null,
      agent_id: null,
      callback_url: null,
      audio_blob_key: null,
      guide_ipa: null,
      guide_respelling: null,
      guide_language: null,
      guide_language_suggested: 0,
    }))
    .where('id', '=', input.id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
