/**
 * A worker that stops (SIGTERM) records the sends it has under way before it ends: the worker
 * records finished sends in groups, and a send still waiting for its group when the process
 * exits would otherwise be sent again by the next worker once its lease ran out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '5000' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

describe('worker shutdown', () => {
  it('waits for the sends under way and records them: the delivery is succeeded, logged once, and not sent again', async () => {
    const account = await t.newAccount();
    const accountId = await accountIdOf(t, account.email);
    receiver.respond = () => ({ status: 200, delayMs: 300 });
    const created = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key: account.key,
      json: { url: `${receiver.url}/hook`, events: ['recording.completed'] },
    });
    expect(created.statusCode).toBe(201);
    const hook = created.json<{ id: string }>();

    const worker = createWorker(t.deps, { pollMs: 20 });
    worker.start();
    await recordTestEvent(t, accountId);
    await receiver.waitFor(1, 10_000);
    await worker.stop(); // while the receiver has not answered yet

    const deliveries = (await t.request({ method: 'GET', url: `/v1/webhooks/${hook.id}/deliveries`, key: account.key })).json();
    expect(deliveries.data).toHaveLength(1);
    expect(deliveries.data[0]).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(deliveries.data[0].attempts[0]).toMatchObject({ attempt: 1, trigger: 'automatic', response_status: 200 });
    expect(receiver.requests).toHaveLength(1);
  });
});
