import type { Kysely } from 'kysely';

/**
 * What a webhook sends (issue 31): `kind` is the destination's format (`standard`: the spec's
 * signed JSON; `slack` and `teams`: a chat message), `payload_format` is `full` (the spec's body)
 * or `thin` (ids and a URL to fetch the object; standard webhooks only). The defaults keep every
 * existing webhook exactly as it was.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('standard'))
    .execute();
  await db.schema
    .alterTable('webhooks')
    .addColumn('payload_format', 'text', (c) => c.notNull().defaultTo('full'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('payload_format').execute();
  await db.schema.alterTable('webhooks').dropColumn('kind').execute();
}
