import type { Kysely } from 'kysely';

/**
 * LTI launches completed through the platform's storage (issue 29), for browsers that withhold
 * the tool's state cookie inside the platform's frame.
 *
 * `lti_launch_tickets`: a launch whose id_token was verified (and its nonce used up) but whose
 * browser still has to prove it started the login, by reading the state back from the platform's
 * storage. `ticket_hash`: SHA-256 of the one-time ticket handed to that page; `state_hash`: the
 * login's state, which the page must send back; `launch`: the verified launch (JSON) to land
 * once it does. Single use (`used_at`), minutes (`expires_at`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lti_launch_tickets')
    .addColumn('ticket_hash', 'text', (c) => c.primaryKey())
    .addColumn('state_hash', 'text', (c) => c.notNull())
    .addColumn('registration_id', 'text', (c) => c.notNull().references('lti_registrations.id').onDelete('cascade'))
    .addColumn('launch', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('lti_launch_tickets_expires').on('lti_launch_tickets').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lti_launch_tickets').execute();
}
