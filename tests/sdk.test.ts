/**
 * The SDK (@voicename/sdk) against the real service over HTTP: a customer's whole flow (collection,
 * CSV import, uploads from every kind of source, play links, a signed webhook checked with
 * `verifyWebhook`), pagination, typed errors and idempotency. Retries are driven by a small fake
 * server instead, since the service cannot be told to answer 429 or 5xx on demand.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import {
  AuthenticationError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  Voicename,
  VoicenameConnectionError,
  VoicenameError,
  verifyWebhook,
  WebhookVerificationError,
} from '@voicename/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker } from '../src/jobs/registry.js';
import type { JobWorker } from '../src/jobs/worker.js';
import { freePort, startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type ReceivedRequest, type Receiver, type Reply, startReceiver } from './helpers/webhook-receiver.js';

let t: TestApp & { url: string };
let hooks: Receiver;
let worker: JobWorker;

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_MS: '50' } });
  hooks = await startReceiver();
  worker = createWorker(t.deps, { pollMs: 50 });
  worker.start();
});
afterAll(async () => {
  await worker.stop();
  await hooks.close();
  await t.close();
});

/** A client for a new account, recording every request and response it exchanges. */
async function newClient() {
  const { key } = await t.newAccount();
  const exchanges: { request: Request; response: Response }[] = [];
  const client = new Voicename({
    apiKey: key,
    baseUrl: t.url,
    fetch: async (request, init) => {
      const response = await fetch(request, init);
      exchanges.push({ request, response });
      return response;
    },
  });
  return { client, exchanges };
}

const CSV = 'Email,First Name,Surname\nsiobhan@example.com,Siobhán,Ní Bhriain\nada@example.com,Ada,Lovelace\n';

describe('SDK against the service', () => {
  it('runs the customer flow: import, upload, play links, and a verified recording.completed webhook', async () => {
    const { client } = await newClient();
    const webhook = await client.webhooks.create({ url: hooks.url, events: ['recording.completed'] });
    expect(webhook.secret).toMatch(/^whsec_/);
    const collection = await client.collections.create({ name: 'Class of 2027', description: 'Graduation' });
    expect(collection).toMatchObject({ name: 'Class of 2027', member_count: 0 });

    const report = await client.users.import(collection.id, CSV);
    expect(report).toMatchObject({ rows: 2, created: 2, failed: 0 });
    const people = await client.users.list(collection.id).toArray();
    const siobhan = people.find((user) => user.email === 'siobhan@example.com');
    const ada = people.find((user) => user.email === 'ada@example.com');
    if (!siobhan || !ada) throw new Error('imported people missing');
    expect(siobhan.last_name).toBe('Ní Bhriain');

    const wav = speechWav('Siobhan Ni Bhriain', 'sdk-flow');
    const uploaded = await client.recordings.upload(collection.id, siobhan.id, fs.createReadStream(wav), {
      contentType: 'audio/wav',
    });
    expect(uploaded.play_link).toMatch(new RegExp(`^${t.url}/p/`));
    expect(uploaded.status).toBe('active');

    const playLink = await client.playLinks.get(collection.id, siobhan.id);
    expect(playLink.play_link).toBe(uploaded.play_link);
    const meta = await fetch(`${playLink.play_link}/meta`);
    expect(meta.status).toBe(200);
    await expect(client.playLinks.get(collection.id, ada.id)).rejects.toMatchObject({
      status: 404,
      code: 'recording_missing',
    });

    const batch = await client.playLinks.batch(collection.id, [siobhan.id, ada.id, 'not-a-user']);
    expect(batch.map((item) => [item.user_id, item.has_recording, item.play_link])).toEqual([
      [siobhan.id, true, playLink.play_link],
      [ada.id, false, null],
      ['not-a-user', false, null],
    ]);
    await expect(
      client.playLinks.batch(
        collection.id,
        Array.from({ length: 101 }, (_, i) => `u${i}`),
      ),
    ).rejects.toThrow(RangeError);

    await hooks.waitFor(1, 15_000);
    const delivery = hooks.requests.find((request) => request.body.includes(siobhan.id)) as ReceivedRequest;
    const { event, id } = verifyWebhook({ secret: webhook.secret, headers: delivery.headers, body: delivery.body });
    expect(id).toBeTruthy();
    expect(event.event).toBe('recording.completed');
    expect(event.data).toMatchObject({ collection_id: collection.id, user_id: siobhan.id, play_link: playLink.play_link });
    expect(() =>
      verifyWebhook({ secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', headers: delivery.headers, body: delivery.body }),
    ).toThrow(WebhookVerificationError);
    expect(await client.collections.get(collection.id)).toMatchObject({ member_count: 2, recorded_count: 1 });
  });

  it('uploads from a Blob, bytes and a web ReadableStream, and deletes a recording', async () => {
    const { client } = await newClient();
    const collection = await client.collections.create({ name: 'Sources' });
    const { data: people } = await client.users.batchCreate(collection.id, {
      users: [
        { email: 'a@example.com', first_name: 'Ana' },
        { email: 'b@example.com', first_name: 'Ben' },
        { email: 'c@example.com', first_name: 'Cy' },
      ],
    });
    const [ana, ben, cy] = people.map((user) => user.id) as [string, string, string];
    const bytes = fs.readFileSync(speechWav('Ana Ben Cy', 'sdk-sources'));

    await client.recordings.upload(collection.id, ana, new Blob([bytes], { type: 'audio/wav' }));
    await client.recordings.upload(collection.id, ben, new Uint8Array(bytes));
    await client.recordings.upload(collection.id, cy, Readable.toWeb(Readable.from([bytes])) as ReadableStream<Uint8Array>);
    const batch = await client.playLinks.batch(collection.id, [ana, ben, cy]);
    expect(batch.every((item) => item.has_recording)).toBe(true);

    expect(await client.recordings.delete(collection.id, cy)).toEqual({ deleted: true, user_id: cy });
    await expect(client.playLinks.get(collection.id, cy)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('creates people from CSV text in one batch, and reports every bad row of a batch at once', async () => {
    const { client } = await newClient();
    const collection = await client.collections.create({ name: 'Batch' });
    const created = await client.users.batchCreate(collection.id, {
      csv: 'email,first_name\nx@example.com,Xia\ny@example.com,Yusuf\n',
    });
    expect(created.data.map((user) => user.first_name)).toEqual(['Xia', 'Yusuf']);

    const refused = await client.users
      .batchCreate(collection.id, {
        users: [
          { email: 'not-an-email', first_name: 'Zed' },
          { email: 'z@example.com', first_name: '' },
        ],
      })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as InvalidRequestError).errors?.length).toBeGreaterThanOrEqual(2);
  });

  it('follows cursors across pages', async () => {
    const { client, exchanges } = await newClient();
    for (const n of [1, 2, 3, 4, 5]) await client.collections.create({ name: `Group ${n}` });

    const first = await client.collections.list({ limit: 2 }).page();
    expect(first.data).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toEqual(expect.any(String));

    const before = exchanges.length;
    const names: string[] = [];
    for await (const collection of client.collections.list({ limit: 2 })) names.push(collection.name);
    expect(names).toEqual(['Group 5', 'Group 4', 'Group 3', 'Group 2', 'Group 1']);
    expect(exchanges.length - before).toBe(3);

    const pages: number[] = [];
    for await (const page of client.collections.list({ limit: 2 }).pages()) pages.push(page.data.length);
    expect(pages).toEqual([2, 2, 1]);
  });

  it('throws typed errors with the envelope fields', async () => {
    const { client } = await newClient();
    const missing = await client.collections.get('6f1c1c1e-2b2a-4c1e-9d57-0c1b8f0e2a11').catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toBeInstanceOf(VoicenameError);
    expect(missing).toMatchObject({ status: 404, type: 'invalid_request_error', code: 'resource_missing' });
    expect((missing as NotFoundError).requestId).toEqual(expect.any(String));

    const invalid = await client.collections.create({ name: 'x', colour: 'red' } as never).catch((error: unknown) => error);
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ status: 400, code: 'parameter_unknown', param: 'colour' });

    const stranger = new Voicename({ apiKey: 'vn_not_a_real_key', baseUrl: t.url });
    await expect(stranger.collections.list().page()).rejects.toMatchObject({
      constructor: AuthenticationError,
      status: 401,
      code: 'invalid_api_key',
    });
  });

  it('sends an Idempotency-Key on every POST, and the service replays a repeated key', async () => {
    const { client, exchanges } = await newClient();
    const created = await client.collections.create({ name: 'Once' });
    const sent = exchanges.at(-1)?.request;
    expect(sent?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent?.headers.get('authorization')).toMatch(/^Bearer vn_/);

    const key = `sdk-test-${created.id}`;
    const first = await client.collections.create({ name: 'Twice' }, { idempotencyKey: key });
    const again = await client.collections.create({ name: 'Twice' }, { idempotencyKey: key });
    expect(again.id).toBe(first.id);
    expect(exchanges.at(-1)?.request.headers.get('idempotency-key')).toBe(key);
    expect(exchanges.at(-1)?.response.headers.get('idempotent-replayed')).toBe('true');
    expect(exchanges.filter((exchange) => exchange.request.method === 'GET')).toHaveLength(0);
  });

  it('manages webhooks: list, update, test event, deliveries, rotation, delete', async () => {
    const { client } = await newClient();
    const webhook = await client.webhooks.create({ url: hooks.url, events: ['recording.completed'] });
    expect((await client.webhooks.list().toArray()).map((w) => w.id)).toEqual([webhook.id]);
    const updated = await client.webhooks.update(webhook.id, { events: ['*'] });
    expect(updated.events).toEqual(['*']);
    const test = await client.webhooks.test(webhook.id);
    expect(test.event).toBe('webhook.test');
    expect((await client.webhooks.deliveries(webhook.id).page()).data.map((d) => d.id)).toContain(test.id);
    const rotated = await client.webhooks.rotateSecret(webhook.id);
    expect(rotated.secret).not.toBe(webhook.secret);
    expect(await client.webhooks.delete(webhook.id)).toEqual({ deleted: true, id: webhook.id });
    await expect(client.webhooks.get(webhook.id)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('lists the event types with their schemas and examples', async () => {
    const { client } = await newClient();
    const types = await client.webhooks.eventTypes();
    const completed = types.find((type) => type.name === 'recording.completed');
    expect(completed?.example).toMatchObject({ event: 'recording.completed' });
    expect(completed?.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
  });
});

/** A fake API answering from a script of replies (the last one repeats), recording what it got. */
async function fakeApi(replies: Reply[]) {
  let served = 0;
  const server = await startReceiver(() => replies[Math.min(served++, replies.length - 1)] as Reply);
  const client = (options: { maxRetries?: number; timeoutMs?: number } = {}) =>
    new Voicename({ apiKey: 'vn_test', baseUrl: server.url, ...options });
  return { server, client };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body: JSON.stringify(body),
  headers: { 'content-type': 'application/json', ...headers },
});
const apiError = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { type: 'api_error', code, message: code, request_id: 'req_1' } }, headers);
const page = json(200, { data: [], has_more: false, next_cursor: null });

describe('SDK retries', () => {
  it('waits for Retry-After on a 429, then succeeds', async () => {
    const { server, client } = await fakeApi([apiError(429, 'rate_limited', { 'retry-after': '1' }), page]);
    try {
      const started = Date.now();
      await expect(client().collections.list().page()).resolves.toMatchObject({ data: [] });
      expect(server.requests).toHaveLength(2);
      expect(server.requests[1]!.startedAt - server.requests[0]!.startedAt).toBeGreaterThanOrEqual(950);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(server.requests[1]?.headers.authorization).toBe('Bearer vn_test');
    } finally {
      await server.close();
    }
  });

  it('gives up after maxRetries with a RateLimitError carrying Retry-After and the limit', async () => {
    const { server, client } = await fakeApi([
      apiError(429, 'rate_limited', { 'retry-after': '0', 'ratelimit-policy': '"v1";q=600;w=60', ratelimit: '"v1";r=0;t=0' }),
    ]);
    try {
      const error = await client({ maxRetries: 2 })
        .collections.list()
        .page()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterSeconds).toBe(0);
      expect((error as RateLimitError).rateLimit).toEqual({
        policy: 'v1',
        limit: 600,
        windowSeconds: 60,
        remaining: 0,
        resetSeconds: 0,
      });
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('retries a POST after a 5xx with the same Idempotency-Key', async () => {
    const collection = { id: 'c1', name: 'Retried' };
    const { server, client } = await fakeApi([apiError(503, 'service_unavailable'), json(201, collection)]);
    try {
      await expect(client().collections.create({ name: 'Retried' })).resolves.toMatchObject(collection);
      const keys = server.requests.map((request) => request.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
      expect(server.requests[1]?.body).toBe(JSON.stringify({ name: 'Retried' }));
    } finally {
      await server.close();
    }
  });

  it('retries an upload body in full after a 503', async () => {
    const { server, client } = await fakeApi([
      apiError(503, 'audio_busy', { 'retry-after': '0' }),
      json(200, { status: 'active' }),
    ]);
    try {
      const audio = Readable.from([Buffer.from('RIFF'), Buffer.from('fake-wave')]);
      await client().recordings.upload('c1', 'u1', audio, { contentType: 'audio/wav' });
      expect(server.requests.map((request) => [request.method, request.headers['content-type'], request.body])).toEqual([
        ['PUT', 'audio/wav', 'RIFFfake-wave'],
        ['PUT', 'audio/wav', 'RIFFfake-wave'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('does not retry a PATCH after a 5xx (it may have been applied)', async () => {
    const { server, client } = await fakeApi([apiError(500, 'internal_error'), json(200, {})]);
    try {
      await expect(client().collections.update('c1', { name: 'Renamed' })).rejects.toMatchObject({ status: 500 });
      expect(server.requests).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('turns refused connections and timeouts into VoicenameConnectionError after retrying', async () => {
    const closed = new Voicename({ apiKey: 'vn_test', baseUrl: `http://127.0.0.1:${await freePort()}`, maxRetries: 1 });
    await expect(closed.collections.list().page()).rejects.toBeInstanceOf(VoicenameConnectionError);

    const { server, client } = await fakeApi([{ ...page, delayMs: 2_000 }]);
    try {
      await expect(client({ timeoutMs: 200, maxRetries: 1 }).collections.list().page()).rejects.toThrow(/timed out after 200 ms/);
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
