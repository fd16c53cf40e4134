import type { Kysely } from 'kysely';

/**
 * Which sites a course's pages may be framed by (issue 29): an LMS shows the tool in a frame of
 * its own pages, so a learner's record page, reached from a launch, must let that site frame it
 * while refusing every other. `frame_origins`: a JSON array of the origins its launches came
 * from (the launch post's Origin, the platform's `launch_presentation.return_url`), at most a few.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('lti_contexts').addColumn('frame_origins', 'text').execute();
  // Every record page view asks which courses link its collection.
  await db.schema.createIndex('lti_contexts_collection').on('lti_contexts').column('collection_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('lti_contexts_collection').execute();
  await db.schema.alterTable('lti_contexts').dropColumn('frame_origins').execute();
}
