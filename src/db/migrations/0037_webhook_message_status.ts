import type { Kysely } from 'kysely';

/**
 * Recovery and the messages listing look for one webhook's messages of one status in a time
 * range (`POST /v1/webhooks/{id}/recover`, `GET …/messages?status=failed`). With only the
 * (webhook_id, created_at, id) index they read every message of the range, however few failed;
 * this one goes straight to the failed ones, in the order recovery queues them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_webhook_status')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'status', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_webhook_status').execute();
}
