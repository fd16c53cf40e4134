/**
 * Domain events (the outbox). A feature records an event inside the same transaction as the
 * change it describes; a `events.dispatch` job is enqueued with it, and the webhooks feature
 * handles that job (fan-out to matching webhooks). Nothing is sent if the change rolls back,
 * and nothing is lost if the process dies after the commit.
 */
import { Type } from 'typebox';
import type { TransactionScope } from '../../db/transaction.js';
import { defineJob } from '../../jobs/define.js';
import { enqueue } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import { insertEvent } from './repo.js';

/** Fans one recorded event out to the matching webhooks; handled by the webhooks feature. */
export const eventDispatchJob = defineJob({
  name: 'events.dispatch',
  payload: Type.Object({ event_id: Type.String({ minLength: 1 }) }),
  maxAttempts: 20,
  backoff: (attempt) => Math.min(attempt * 5_000, 300_000),
  leaseMs: 30_000,
});

export interface RecordedEvent {
  id: string;
  type: string;
  created_at: string;
}

/** Call within the transaction of the change. `data` is the event's `data` object as delivered. */
export async function recordEvent(
  tx: TransactionScope,
  input: { accountId: string; type: string; data: Record<string, unknown>; at: Date },
): Promise<RecordedEvent> {
  const event = { id: `evt_${newId().replace(/-/g, '')}`, type: input.type, created_at: input.at.toISOString() };
  await insertEvent(tx.trx, { ...event, account_id: input.accountId, data: JSON.stringify(input.data) });
  await enqueue(tx, eventDispatchJob, { event_id: event.id }, { runAt: input.at });
  return event;
}
