import type { Kysely } from 'kysely';

/**
 * Organisation name and brand colour (issue 28).
 *
 * `accounts.name`: what the organisation is called on the dashboard and in invitations to join;
 * null: its e-mail, as before the column existed.
 *
 * `collections.brand_color`: the collection's colour as `#rrggbb` (lower case), checked when set
 * so that white text on it reads at WCAG AA; null: the service's own colour.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('name', 'text').execute();
  await db.schema.alterTable('collections').addColumn('brand_color', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('collections').dropColumn('brand_color').execute();
  await db.schema.alterTable('accounts').dropColumn('name').execute();
}
