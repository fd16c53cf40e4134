/**
 * The sandbox processor's payment intents (./sandbox.ts): rows in our own database. Every change
 * is conditional on the intent's state, so two callers racing on one intent cannot both win.
 */
import type { Kysely } from 'kysely';
import type { Database, SandboxPaymentIntentsTable } from '../../db/schema.js';

type Db = Kysely<Database>;

export const findSandboxIntent = (db: Db, id: string) =>
  db.selectFrom('sandbox_payment_intents').selectAll().where('id', '=', id).executeTakeFirst();

export const findSandboxIntentByIdempotencyKey = (db: Db, idempotencyKey: string) =>
  db.selectFrom('sandbox_payment_intents').selectAll().where('idempotency_key', '=', idempotencyKey).executeTakeFirst();

export async function insertSandboxIntent(db: Db, row: SandboxPaymentIntentsTable): Promise<void> {
  await db.insertInto('sandbox_payment_intents').values(row).execute();
}

/** Cancels the intent unless it already succeeded or was canceled. */
export async function cancelSandboxIntent(db: Db, id: string, at: string): Promise<void> {
  await db
    .updateTable('sandbox_payment_intents')
    .set({ status: 'canceled', updated_at: at })
    .where('id', '=', id)
    .where('status', 'in', ['requires_payment_method', 'requires_confirmation', 'requires_action'])
    .execute();
}

/** Refunds a succeeded intent in full, once: the first writer's refund id stays. */
export async function refundSandboxIntent(db: Db, id: string, refundId: string, at: string): Promise<void> {
  await db
    .updateTable('sandbox_payment_intents')
    .set((eb) => ({ refund_id: refundId, amount_refunded: eb.ref('amount'), updated_at: at }))
    .where('id', '=', id)
    .where('status', '=', 'succeeded')
    .where('refund_id', 'is', null)
    .execute();
}

/** Marks the intent paid by card, if it is still in the state `from` the caller read. */
export async function succeedSandboxIntent(
  db: Db,
  id: string,
  from: SandboxPaymentIntentsTable['status'],
  at: string,
): Promise<void> {
  await db
    .updateTable('sandbox_payment_intents')
    .set({ status: 'succeeded', payment_method_type: 'card', updated_at: at })
    .where('id', '=', id)
    .where('status', '=', from)
    .execute();
}
