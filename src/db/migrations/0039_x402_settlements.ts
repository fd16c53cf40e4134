import type { Kysely } from 'kysely';

/**
 * x402 settlements of paid generation (issue 31): the facilitator's answer to `/settle` for the
 * payment request an x402 payment became. A request settles once: a retry after a failure on
 * our side publishes without settling again, and the 200 (and its replays) repeats the
 * `PAYMENT-RESPONSE` from this row. x402 has no refund call, so a settled payment whose
 * publication failed for good is found here by the operator (payer, amount, transaction).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('x402_settlements')
    .addColumn('payment_request_id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('transaction', 'text', (c) => c.notNull())
    .addColumn('settled_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('x402_settlements').execute();
}
