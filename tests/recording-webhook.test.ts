/**
 * End to end: a person records their name through the API, and the customer's endpoint
 * receives a signed `recording.completed` webhook with exactly the spec's body, delivered by the
 * real in-process worker; deleting the recording announces `recording.deleted`.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import type { JobWorker } from '../src/jobs/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

let t: TestApp;
let receiver: Receiver;
let worker: JobWorker;

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_MS: '50' } });
  receiver = await startReceiver();
  worker = createWorker(t.deps, { pollMs: 50 });
  worker.start();
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await t.close();
});

describe('recording → webhook', () => {
  it('delivers recording.completed with the spec body, signed, for recordings and re-recordings; then recording.deleted', async () => {
    const { key } = await t.newAccount();
    // The recording events only: the person's pronunciation guide (made in the background) has its own.
    const hook = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: receiver.url, events: ['recording.completed', 'recording.deleted'] },
    });
    expect(hook.statusCode).toBe(201);
    const secret: string = hook.json().secret;
    const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Staff' } })).json();
    const user = (
      await t.request({
        method: 'POST',
        url: `/v1/collections/${collection.id}/users`,
        key,
        json: { email: 'siobhan@example.com', first_name: 'Siobhán', last_name: 'Ní Bhriain' },
      })
    ).json();
    const upload = () =>
      t.request({
        method: 'PUT',
        url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
        key,
        headers: { 'content-type': 'audio/wav' },
        payload: fs.readFileSync(speechWav('Siobhan Ni Bhriain', 'webhook-e2e')),
      });

    const recorded = await upload();
    expect(recorded.statusCode).toBe(200);
    await receiver.waitFor(1, 10_000);
    const first = receiver.requests[0];
    if (!first) throw new Error('no delivery');
    const body = JSON.parse(first.body);
    expect(Object.keys(body).sort()).toEqual(['data', 'event', 'timestamp']);
    expect(body.event).toBe('recording.completed');
    expect(body.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/);
    expect(body.data).toEqual({
      collection_id: collection.id,
      user_id: user.id,
      email: 'siobhan@example.com',
      first_name: 'Siobhán',
      last_name: 'Ní Bhriain',
      play_link: recorded.json().play_link,
      recorded_at: recorded.json().recorded_at,
    });
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(first.body, 'utf8').digest('hex');
    expect(first.headers['x-service-signature']).toBe(expected);

    const again = await upload();
    expect(again.statusCode).toBe(200);
    expect(again.json().play_link).toBe(recorded.json().play_link);
    await receiver.waitFor(2, 10_000);
    expect(JSON.parse(receiver.requests[1]?.body ?? '{}').event).toBe('recording.completed');

    const removed = await t.request({
      method: 'DELETE',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
    });
    expect(removed.statusCode).toBe(200);
    await receiver.waitFor(3, 10_000);
    const deleted = JSON.parse(receiver.requests[2]?.body ?? '{}');
    expect(deleted.event).toBe('recording.deleted');
    expect(deleted.data).toMatchObject({ collection_id: collection.id, user_id: user.id, email: 'siobhan@example.com' });
  }, 60_000);
});
