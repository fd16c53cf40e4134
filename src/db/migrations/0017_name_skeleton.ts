import type { Kysely } from 'kysely';
import { confusableSkeleton } from '../../lib/confusables.js';

/**
 * The confusable skeleton (UTS #39) of each agent profile's slug, unique: a name that only looks
 * like a published one ("арех" for "apex") is taken, however the two race. Profiles published
 * before this check keep their slugs; where two of them look alike, the older holds the skeleton
 * and the younger gets `<skeleton>#<id>`, which no new name can produce.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('entities').addColumn('name_skeleton', 'text').execute();
  const rows = await db.selectFrom('entities').select(['id', 'slug']).orderBy('created_at').orderBy('id').execute();
  const seen = new Set<string>();
  for (const row of rows as { id: string; slug: string }[]) {
    let skeleton = confusableSkeleton(row.slug);
    if (seen.has(skeleton)) skeleton = `${skeleton}#${row.id}`;
    seen.add(skeleton);
    await db.updateTable('entities').set({ name_skeleton: skeleton }).where('id', '=', row.id).execute();
  }
  await db.schema.createIndex('entities_name_skeleton').on('entities').column('name_skeleton').unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('entities_name_skeleton').execute();
  await db.schema.alterTable('entities').dropColumn('name_skeleton').execute();
}
