import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
};
type Document = {
  info: { contact?: unknown; license?: unknown };
  servers: { url: string }[];
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation> & { servers?: { url: string }[] }>;
  webhooks: Record<string, { post: Operation }>;
  components: { schemas: Record<string, { properties?: Record<string, unknown>; required?: string[] }> };
};

let t: TestApp;
let document: Document;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = () =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ path, method, operation: item[method] as Operation })),
  );

beforeAll(async () => {
  t = await createTestApp({ env: { BASE_URL: 'https://api.voicename.test', SITE_URL: 'https://voicename.test' } });
  document = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
});
afterAll(() => t.close());

describe('the API document generated clients are built from', () => {
  it('names every operation once, with a declared tag, a summary and a description', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(
      expect.arrayContaining(['collections.create', 'users.batchCreate', 'playLinks.batch', 'recordings.upload']),
    );
    const declared = new Set(document.tags.map((tag) => tag.name));
    for (const { operation } of operations()) {
      expect(operation.tags?.every((tag) => declared.has(tag))).toBe(true);
      expect(operation.summary).toBeTruthy();
      expect(operation.description).toBeTruthy();
    }
    expect(document.info.contact).toBeDefined();
    expect(document.info.license).toBeDefined();
  });

  it('references named schemas, so clients get Collection, User, PlayLink… types', () => {
    const names = Object.keys(document.components.schemas);
    expect(names).toEqual(
      expect.arrayContaining([
        'Collection',
        'User',
        'PlayLink',
        'BatchPlayLinkItem',
        'Webhook',
        'WebhookDelivery',
        'Error',
        'Entity',
        'Receipt',
      ]),
    );
    const create = document.paths['/v1/collections']!.post as Operation;
    expect(create.responses['201']!.content!['application/json']!.schema).toEqual({ $ref: '#/components/schemas/Collection' });
  });

  it('declares the upload as raw audio and the batch as JSON or CSV, never a JSON upload', () => {
    const upload = document.paths['/v1/collections/{collection_id}/users/{user_id}/recording']!.put as Operation;
    // Concrete types only, each a file (`format: binary`): generators copy a media-type key into the
    // header, and the first one listed is true of any file.
    expect(Object.keys(upload.requestBody!.content)[0]).toBe('application/octet-stream');
    expect(Object.keys(upload.requestBody!.content)).toEqual(
      expect.arrayContaining(['audio/webm', 'audio/mpeg', 'audio/wav', 'audio/ogg', 'audio/mp4']),
    );
    expect(Object.keys(upload.requestBody!.content)).not.toContain('audio/*');
    const logo = document.paths['/v1/collections/{collection_id}/logo']!.put as Operation;
    const csvImport = document.paths['/v1/collections/{collection_id}/users/import']!.post as Operation;
    for (const [name, operation] of Object.entries({ upload, logo, csvImport })) {
      for (const [type, media] of Object.entries(operation.requestBody!.content)) {
        expect(media.schema, `${name} ${type}`).toMatchObject({ type: 'string', format: 'binary' });
      }
    }
    // Files answered: the CSV is text, the ZIP and the MP3 bytes.
    const exported = (document.paths['/v1/collections/{collection_id}/export']!.get as Operation).responses['200']!.content!;
    expect(exported['text/csv']!.schema).toMatchObject({ type: 'string' });
    expect(exported['application/zip']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    const audio = (document.paths['/p/{token}.mp3']!.get as Operation).responses['200']!.content!;
    expect(audio['audio/mpeg']!.schema).toMatchObject({ type: 'string', format: 'binary' });
    const batch = document.paths['/v1/collections/{collection_id}/users/batch']!.post as Operation;
    expect(Object.keys(batch.requestBody!.content).sort()).toEqual(['application/json', 'text/csv']);
  });

  it('documents the statuses and headers every /v1 answer can have', () => {
    for (const { path, method, operation } of operations().filter(({ path }) => path.startsWith('/v1/'))) {
      for (const status of ['400', '401', '429', '500'])
        expect(operation.responses[status], `${method} ${path} ${status}`).toBeDefined();
      expect(Object.keys(operation.responses['429']!.headers ?? {})).toContain('Retry-After');
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(Object.keys(response.headers ?? {})).toContain('X-Request-Id');
        // The limit counts a request once its key is known: every answer but the 401 carries its fields.
        if (status !== '401') {
          expect(Object.keys(response.headers ?? {})).toEqual(expect.arrayContaining(['RateLimit-Policy', 'RateLimit']));
        }
      }
      if (method === 'post') {
        expect(operation.parameters?.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')).toBe(true);
        expect(operation.responses['409']).toBeDefined();
      }
      if (operation.requestBody) for (const status of ['413', '415']) expect(operation.responses[status]).toBeDefined();
      if (operation.responses['201']) expect(Object.keys(operation.responses['201'].headers ?? {})).toContain('Location');
    }
  });

  it('declares X-Request-Id on the answers of every route, public ones included', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(Object.keys(response.headers ?? {}), `${method} ${path} ${status}`).toContain('X-Request-Id');
      }
    }
  });

  it('serves /v1 and /p from BASE_URL and the agent API and site documents from SITE_URL', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: 'https://api.voicename.test' })]);
    for (const path of ['/v1/collections', '/p/{token}/meta', '/p/{token}.mp3', '/oembed']) {
      expect(document.paths[path], path).toBeDefined();
      expect(document.paths[path]!.servers).toBeUndefined();
    }
    for (const path of [
      '/api/entities/generate',
      '/api/entities/{slug}',
      '/e/{slug}/.well-known/service.json',
      '/.well-known/service-agent-services.json',
      '/schemas/entity-generation.schema.json',
      '/api/sandbox/payment-intents/{id}/confirm',
    ]) {
      expect(document.paths[path]?.servers, path).toEqual([expect.objectContaining({ url: 'https://voicename.test' })]);
    }
  });

  it('describes every webhook event, recording.completed exactly as the spec, with the signature headers', () => {
    expect(Object.keys(document.webhooks).sort()).toEqual(
      [
        'collection.erased',
        'invitation.failed',
        'invitation.sent',
        'recording.completed',
        'recording.deleted',
        'user.deleted',
        'user.updated',
        'pronunciation.updated',
        'webhook.test',
      ].sort(),
    );
    const completed = document.webhooks['recording.completed']!.post;
    expect(completed.parameters!.map((p) => p.name)).toEqual(
      expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Signature']),
    );
    const ref = (completed.requestBody!.content['application/json'] as { schema: { $ref: string } }).schema.$ref;
    const event = document.components.schemas[ref.split('/').pop()!]!;
    expect(Object.keys(event.properties!)).toEqual(['event', 'timestamp', 'data']);
    const data = event.properties!.data as { properties: Record<string, unknown> };
    expect(Object.keys(data.properties)).toEqual([
      'collection_id',
      'user_id',
      'email',
      'first_name',
      'last_name',
      'play_link',
      'recorded_at',
    ]);
  });

  it('states the custom-field limit the request schemas enforce', () => {
    const limits = ['CreateCollection', 'UpdateCollection'].map((name) => {
      const fields = document.components.schemas[name]!.properties!.custom_fields as { maxItems?: number };
      return fields.maxItems;
    });
    expect(new Set(limits).size).toBe(1);
    const create = document.paths['/v1/collections']!.post as Operation;
    const stated = [...(create.description ?? '').matchAll(/at most (\d+)/g)].map((match) => Number(match[1]));
    expect(stated).toEqual([limits[0]]);
  });

  it('answers /v1 with Cache-Control: no-store, errors included', async () => {
    const { key } = await t.newAccount();
    const answers = await Promise.all([
      t.request({ method: 'GET', url: '/v1/collections', key }),
      t.request({ method: 'GET', url: '/v1/collections' }),
      t.request({ method: 'GET', url: '/v1/no-such-route', key }),
      t.request({ method: 'POST', url: '/v1/webhooks', key, json: { url: 'not a url' } }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 404, 400]);
    for (const answer of answers) expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('names the created object in Location on every 201', async () => {
    const { key } = await t.newAccount();
    const collection = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027' } });
    const id = collection.json<{ id: string }>().id;
    expect(collection.statusCode).toBe(201);
    expect(collection.headers.location).toBe(`https://api.voicename.test/v1/collections/${id}`);
    expect((await t.request({ method: 'GET', url: new URL(String(collection.headers.location)).pathname, key })).statusCode).toBe(
      200,
    );

    const retry = { method: 'POST' as const, url: '/v1/collections', key, json: { name: 'Retried' } };
    const headers = { 'idempotency-key': `k-${id}` };
    const first = await t.request({ ...retry, headers });
    const replay = await t.request({ ...retry, headers });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers.location).toBe(first.headers.location);

    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'ada@example.com', first_name: 'Ada' },
    });
    expect(user.headers.location).toBe(`https://api.voicename.test/v1/collections/${id}/users/${user.json<{ id: string }>().id}`);

    const batch = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users/batch`,
      key,
      json: { users: [{ email: 'grace@example.com', first_name: 'Grace' }] },
    });
    expect(batch.statusCode).toBe(201);
    expect(batch.headers.location).toBe(`https://api.voicename.test/v1/collections/${id}/users`);
  });
});
