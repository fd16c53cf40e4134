import type { Kysely } from 'kysely';

/** Paid entity generation: payment requests (402 instructions), published entities, sandbox intents. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('entity_payment_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // UNIQUE: one payment intent belongs to exactly one request (P1, P3).
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().unique())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('livemode', 'integer', (c) => c.notNull())
    // pending | claimed | published | refunding | refunded | canceled
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('entity_id', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('claimed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('entity_payment_requests_state_expires')
    .on('entity_payment_requests')
    .columns(['state', 'expires_at'])
    .execute();

  await db.schema
    .createTable('entities')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('entity_type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('operator', 'text', (c) => c.notNull())
    .addColumn('visibility', 'text', (c) => c.notNull())
    .addColumn('avatar_url', 'text')
    .addColumn('source_url', 'text')
    .addColumn('voice_style', 'text')
    .addColumn('language', 'text')
    .addColumn('intro', 'text')
    .addColumn('external_metadata', 'text')
    .addColumn('agent_id', 'text')
    .addColumn('callback_url', 'text')
    .addColumn('created_via', 'text', (c) => c.notNull())
    .addColumn('claim_state', 'text', (c) => c.notNull())
    .addColumn('verification_state', 'text', (c) => c.notNull())
    // UNIQUE: a second guard for "one paid intent publishes at most one entity" (P1).
    .addColumn('payment_intent_id', 'text', (c) => c.notNull().unique())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    .addColumn('deletion_token_hash', 'text', (c) => c.notNull())
    .addColumn('audio_blob_key', 'text')
    .addColumn('audio_byte_size', 'integer', (c) => c.notNull())
    .addColumn('audio_duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();

  await db.schema
    .createTable('sandbox_payment_intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('payment_method_type', 'text')
    .addColumn('amount_refunded', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('refund_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_payment_intents').execute();
  await db.schema.dropTable('entities').execute();
  await db.schema.dropTable('entity_payment_requests').execute();
}
