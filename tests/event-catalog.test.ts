/**
 * The event catalog (`GET /v1/event-types`, docs/events.md, the OpenAPI `webhooks` object) is what
 * receivers are generated from, so it must tell the truth: the app is driven to send every event
 * type to a real receiver, and each body received validates against its catalog schema (Ajv 2020
 * strict, with ajv-formats); every catalog type is seen; each example validates against its own
 * schema; the OpenAPI entries are the catalog's schemas; docs/events.md is a fresh generation.
 */
import fs from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventDocsFile, generateEventDocs } from '../scripts/generate-event-docs.js';
import { EVENT_KINDS, TEST_EVENT } from '../src/features/webhooks/schemas.js';
import { createWorker } from '../src/jobs/registry.js';
import type { JobWorker } from '../src/jobs/worker.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createFakeChannel } from './helpers/fake-channel.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { within } from './helpers/within.js';

interface EventType {
  name: string;
  description: string;
  schema: Record<string, unknown>;
  example: { event: string };
}

let t: TestApp;
let receiver: Receiver;
let worker: JobWorker;
let key: string;
let catalog: EventType[];

// Messages to people go to a fake channel: what matters here is the event about each, not the mail.
const chat = createFakeChannel('chat');

beforeAll(async () => {
  receiver = await startReceiver();
  t = await createTestApp({
    env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_POLL_MS: '50', MAIL_RATE_PER_MINUTE: '0' },
    overrides: { ...fakeSpeech(), channels: { extra: [chat], choose: () => 'chat' } },
  });
  ({ key } = await t.newAccount());
  worker = createWorker(t.deps, { pollMs: 50 });
  worker.start();
  const listed = await t.request({ method: 'GET', url: '/v1/event-types', key });
  expect(listed.statusCode, listed.body).toBe(200);
  catalog = listed.json<{ data: EventType[] }>().data;
});
afterAll(async () => {
  await worker.stop();
  await receiver.close();
  await t.close();
});

/** Ajv 2020 in its strict default, ajv-formats and nothing else; any strict-mode warning fails. */
function strictAjv() {
  const warnings: unknown[] = [];
  const record = (...args: unknown[]) => warnings.push(args);
  const ajv = new Ajv2020({ logger: { log: () => {}, warn: record, error: record } });
  addFormats.default(ajv);
  return { ajv, warnings };
}

const api = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

const bodies = () => receiver.requests.map((request) => JSON.parse(request.body) as { event: string });

/** Waits until the receiver got an event of `type`: the next step may remove what it is about. */
async function received(type: string): Promise<void> {
  await within(15_000, async () => bodies().some((body) => body.event === type)).catch(() => {
    throw new Error(
      `no ${type} delivered; received: ${bodies()
        .map((body) => body.event)
        .join(', ')}`,
    );
  });
}

describe('GET /v1/event-types', () => {
  it('needs an API key like the rest of /v1', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/event-types' });
    expect(res.statusCode).toBe(401);
  });

  it('lists each event type with a schema that compiles strictly and an example that validates against it', () => {
    // Every kind a webhook can subscribe to, and the test event.
    expect(catalog.map((type) => type.name).sort()).toEqual([...EVENT_KINDS, TEST_EVENT].sort());
    const { ajv, warnings } = strictAjv();
    for (const { name, description, schema, example } of catalog) {
      expect(description, name).not.toBe('');
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      const validate = ajv.compile(schema);
      expect(validate(example), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(example.event).toBe(name);
    }
    expect(warnings).toEqual([]);
  });

  it('has the same schemas as the OpenAPI webhooks object', async () => {
    const document = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json<{
      webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: unknown } } } } }>;
      components: { schemas: Record<string, unknown> };
    }>();
    // The document moves titled schemas to components; put them back to compare.
    const inline = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(inline);
      if (!value || typeof value !== 'object') return value;
      const ref = (value as { $ref?: string }).$ref;
      if (ref) return inline(document.components.schemas[ref.replace('#/components/schemas/', '')]);
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v)]));
    };
    expect(Object.keys(document.webhooks)).toEqual(catalog.map((type) => type.name));
    for (const { name, schema } of catalog) {
      const { $schema: _dialect, ...body } = schema;
      expect(inline(document.webhooks[name]!.post.requestBody.content['application/json'].schema), name).toEqual(body);
    }
  });
});

describe('every event sent validates against its catalog schema', () => {
  it('drives the app to send each type, and each body received matches its schema', async () => {
    const hook = await api('POST', '/v1/webhooks', { url: receiver.url, events: ['*'] });
    expect(hook.statusCode, hook.body).toBe(201);
    expect((await api('POST', `/v1/webhooks/${hook.json<{ id: string }>().id}/test`)).statusCode).toBe(200);

    const collection = (await api('POST', '/v1/collections', { name: 'Catalog' })).json<{ id: string }>();
    const people = `/v1/collections/${collection.id}/users`;
    const add = async (email: string) => {
      const res = await api('POST', people, { email, first_name: 'Siobhán', last_name: 'Ní Bhriain' });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const recorder = await add('recorder@example.com');
    const unreachable = await add('unreachable@example.com');
    await received('pronunciation.updated');

    expect((await api('PATCH', `${people}/${recorder}`, { first_name: 'Aoife' })).statusCode).toBe(200);
    await received('user.updated');

    const upload = await t.request({
      method: 'PUT',
      url: `${people}/${recorder}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync('examples/name.wav'),
    });
    expect(upload.statusCode, upload.body).toBe(200);
    await received('recording.completed');
    expect((await api('DELETE', `${people}/${recorder}/recording`)).statusCode).toBe(200);
    await received('recording.deleted');

    chat.fail('@unreachable@example.com', { temporary: false }); // the fake channel's handle for that address
    const invited = await api('POST', `/v1/collections/${collection.id}/invitations`, { user_ids: [recorder, unreachable] });
    expect(invited.statusCode, invited.body).toBe(202);
    await received('invitation.sent');
    await received('invitation.failed');

    expect((await api('DELETE', `${people}/${unreachable}`)).statusCode).toBe(200);
    await received('user.deleted');
    expect((await api('DELETE', `/v1/collections/${collection.id}?erase=true`)).statusCode).toBe(200);
    await received('collection.erased');

    const { ajv, warnings } = strictAjv();
    const validators = new Map(catalog.map(({ name, schema }) => [name, ajv.compile(schema)]));
    for (const body of bodies()) {
      const validate = validators.get(body.event);
      expect(validate, `${body.event} is in the catalog`).toBeDefined();
      expect(validate!(body), `${body.event}: ${JSON.stringify(validate!.errors)}`).toBe(true);
    }
    expect(warnings).toEqual([]);
    // Every catalog type was sent here; none is left undriven.
    expect([...new Set(bodies().map((body) => body.event))].sort()).toEqual(catalog.map((type) => type.name).sort());
  });
});

describe('docs/events.md', () => {
  it('is what `npm run docs:events` writes from the catalog', async () => {
    expect(fs.readFileSync(eventDocsFile, 'utf8')).toBe(await generateEventDocs());
  });
});
