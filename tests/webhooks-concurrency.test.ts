/**
 * How many deliveries go out at once: WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK to one receiver, and at
 * most half a worker's slots (WEBHOOK_CONCURRENCY / 2, at least one webhook's share) to one
 * account however many webhooks it has, so one account's slow receivers leave room for others.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverDueWebhooks } from '../src/features/webhooks/delivery.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, dispatchDue, recordingData, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp({
    clock: new ManualClock(new Date()),
    env: {
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_CLAIM_LEASE_MS: '10000',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK: '3',
    },
  });
  receiver = await startReceiver(() => ({ status: 200 }));
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

async function accountWithHooks(paths: string[]) {
  const account = await t.newAccount();
  for (const path of paths) {
    const res = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: account.key,
      json: { url: `${receiver.url}${path}`, events: ['recording.completed'] },
    });
    expect(res.statusCode).toBe(201);
  }
  return accountIdOf(t, account.email);
}

describe(`deliveries in flight at once (${usingPostgres() ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('sends up to WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK to one receiver, and half the slots to one account', async () => {
    const big = await accountWithHooks(['/big-1', '/big-2']);
    const small = await accountWithHooks(['/small']);
    for (let i = 0; i < 6; i++) {
      await recordTestEvent(t, big, 'recording.completed', recordingData(i));
      await recordTestEvent(t, small, 'recording.completed', recordingData(i));
    }
    let dispatched = 0;
    for (let n = await dispatchDue(t); n > 0; n = await dispatchDue(t)) dispatched += n;
    expect(dispatched).toBe(12);

    // One pass sends everything it claims at once: what it claimed is what was in flight together.
    const sent = await deliverDueWebhooks(t.deps, { workerId: 'w1', limit: 20 });
    const to = (prefix: string) => receiver.requests.filter((r) => r.path.startsWith(prefix)).length;
    expect(to('/small')).toBe(3);
    expect(to('/big-1')).toBeLessThanOrEqual(3);
    expect(to('/big-2')).toBeLessThanOrEqual(3);
    expect(to('/big')).toBe(4); // ceil(8 / 2)
    expect(sent).toBe(7);
  });
});
