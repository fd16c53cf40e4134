import type { Kysely } from 'kysely';

/**
 * Manual refunds of x402 payments (issue 31): x402 has no refund call, so a settled payment
 * whose publication failed for good is sent back by the operator from the pay-to wallet and
 * recorded with `cli x402 refunded`. The settlement keeps the token and the wallet it was paid
 * to (null for settlements recorded before this migration), and the refund's transaction and
 * when it was recorded (null while the payment waits to be sent back).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('x402_settlements').addColumn('asset', 'text').execute();
  await db.schema.alterTable('x402_settlements').addColumn('pay_to', 'text').execute();
  await db.schema.alterTable('x402_settlements').addColumn('refund_transaction', 'text').execute();
  await db.schema.alterTable('x402_settlements').addColumn('refunded_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('x402_settlements').dropColumn('refunded_at').execute();
  await db.schema.alterTable('x402_settlements').dropColumn('refund_transaction').execute();
  await db.schema.alterTable('x402_settlements').dropColumn('pay_to').execute();
  await db.schema.alterTable('x402_settlements').dropColumn('asset').execute();
}
