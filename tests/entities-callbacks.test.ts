/**
 * `entity.published` callbacks: enqueued with the publish, delivered by the job worker, signed
 * with the Ed25519 key published in the discovery document, retried on failure, and never sent
 * to private addresses unless WEBHOOK_ALLOW_PRIVATE_URLS is set.
 */
import { createPublicKey, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let receiver: http.Server;
let receiverUrl: string;
const received: Received[] = [];
let answers: number[] = [];

const apps: TestApp[] = [];
beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(answers.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/voicename`;
});
afterAll(async () => {
  for (const t of apps) await t.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

async function app(env: Record<string, string>, clock: ManualClock) {
  const t = await createTestApp({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000', ...env }, clock, overrides: fakeSpeech() });
  apps.push(t);
  return t;
}

describe('entity.published callbacks', () => {
  it('are signed with the key from the discovery document and verify with node:crypto', async () => {
    const clock = new ManualClock(new Date());
    const t = await app({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, clock);
    received.length = 0;
    const { paid } = await publishEntity(t, validBody({ callback_url: receiverUrl, agent_id: 'agent-42' }));
    expect(paid.statusCode).toBe(200);
    const jobs = await t.deps.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'entities.callback').execute();
    expect(jobs).toHaveLength(1);

    const worker = createWorker(t.deps);
    expect(await worker.runDue()).toBe(1);
    expect(received).toHaveLength(1);
    const delivery = received[0] as Received;
    const event = JSON.parse(delivery.body);
    expect(event).toMatchObject({
      event: 'entity.published',
      data: {
        name: paid.json().entity.name,
        profile_url: paid.json().entity.profile_url,
        audio_url: paid.json().entity.audio_url,
        agent_id: 'agent-42',
        transaction_id: paid.json().receipt.transaction_id,
      },
    });
    expect(delivery.body).not.toContain(paid.json().receipt.deletion_token);
    expect(delivery.headers['content-type']).toBe('application/json');
    expect(delivery.headers['x-entity-event-id']).toBe(event.id);

    const discovery = (await t.app.inject({ url: '/.well-known/service-agent-services.json' })).json();
    const jwk = discovery.callbacks.signature.keys[0];
    expect(delivery.headers['x-entity-key-id']).toBe(jwk.kid);
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    const signed = Buffer.from(`${delivery.headers['x-entity-timestamp']}.${delivery.body}`);
    const signature = Buffer.from(String(delivery.headers['x-entity-signature']), 'base64url');
    expect(verify(null, signed, publicKey, signature)).toBe(true);
    expect(verify(null, Buffer.from(`${delivery.headers['x-entity-timestamp']}.${delivery.body} `), publicKey, signature)).toBe(
      false,
    );
    expect(Math.abs(Number(delivery.headers['x-entity-timestamp']) - clock.now().getTime() / 1000)).toBeLessThan(2);
  });

  it('are retried after a failure (30 s later) and stop once delivered', async () => {
    const clock = new ManualClock(new Date());
    const t = await app({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, clock);
    received.length = 0;
    answers = [500, 503];
    await publishEntity(t, validBody({ callback_url: receiverUrl }));
    const worker = createWorker(t.deps);
    expect(await worker.runDue()).toBe(1);
    expect(received).toHaveLength(1);
    expect(await worker.runDue()).toBe(0);
    clock.advance(30_000);
    expect(await worker.runDue()).toBe(1);
    expect(received).toHaveLength(2);
    clock.advance(120_000);
    expect(await worker.runDue()).toBe(1);
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.headers['x-entity-event-id'])).size).toBe(1);
    clock.advance(3_600_000);
    expect(await worker.runDue()).toBe(0);
    expect(await t.deps.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'entities.callback').execute()).toHaveLength(
      0,
    );
  });

  it('to private addresses or over http are refused up front (400, before any 402) without WEBHOOK_ALLOW_PRIVATE_URLS', async () => {
    const clock = new ManualClock(new Date());
    const t = await app({}, clock);
    received.length = 0;
    const http400 = await t.app.inject({
      method: 'POST',
      url: '/api/entities/generate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(validBody({ callback_url: receiverUrl })),
    });
    expect(http400.statusCode).toBe(400);
    // A private or loopback target is refused before any 402: nobody pays for a callback that cannot be sent.
    const port = (receiver.address() as AddressInfo).port;
    for (const url of [`https://127.0.0.1:${port}/hooks`, `https://localhost:${port}/hooks`, `https://[::1]:${port}/hooks`]) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/entities/generate',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(validBody({ callback_url: url })),
      });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().invalid).toEqual([
        { field: 'callback_url', received: url, allowed: ['a public https: URL (its host resolving to public addresses only)'] },
      ]);
    }
    expect(await t.deps.db.kysely.selectFrom('entity_payment_requests').selectAll().execute()).toHaveLength(0);
    const worker = createWorker(t.deps);
    expect(await worker.runDue()).toBe(0);
    expect(received).toHaveLength(0);
    expect(await t.deps.db.kysely.selectFrom('jobs').selectAll().where('name', '=', 'entities.callback').execute()).toHaveLength(
      0,
    );
  });
});
