/**
 * Clients generated from the document this server serves, by three generators nobody here wrote,
 * used as generated: only their configuration (base URL, API key) is ours. Each drives the same
 * walk-through: a collection and its logo, people, a CSV import, a recording upload, the play
 * link and a batch of them, the CSV export and webhooks from creation to deletion.
 *
 * - `@hey-api/openapi-ts` (fetch client and SDK functions);
 * - `openapi-typescript` types with `openapi-fetch`, which knows nothing of the document at run
 *   time: it sends every body as JSON unless told otherwise, so a file goes with the request
 *   options `bodySerializer` and `Content-Type`, and a CSV answer with `parseAs: 'text'` (the
 *   options README.md shows under "Generated clients"; without them the upload is refused, as
 *   asserted below);
 * - orval (`client: 'fetch'`), given the base URL when generating.
 *
 * Generated once per file into a temporary directory (about a second each), then imported.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient as heyApiGenerate } from '@hey-api/openapi-ts';
import createFetchClient from 'openapi-fetch';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { generate as orvalGenerate } from 'orval';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';

let t: TestApp & { url: string };
let dir: string;
let key: string;
/** What each generator wrote, imported. */
let heyApi: { sdk: Record<string, (options?: unknown) => Promise<Result>>; client: { setConfig(config: object): void } };
let orval: Record<string, (...args: unknown[]) => Promise<{ status: number; data: unknown }>>;
let openapiTypes: string;
let png: Buffer;

interface Result {
  data?: unknown;
  error?: unknown;
  response: Response;
}

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  key = (await t.newAccount()).key;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-generated-clients-'));
  const documentFile = path.join(dir, 'openapi.json');
  const served = await fetch(`${t.url}/v1/openapi.json`);
  expect(served.status).toBe(200);
  const document = (await served.json()) as OpenAPI3;
  fs.writeFileSync(documentFile, JSON.stringify(document));

  await heyApiGenerate({
    input: documentFile,
    output: path.join(dir, 'hey-api'),
    logs: { level: 'silent', file: false },
  } as never);
  await orvalGenerate(
    {
      input: { target: documentFile },
      output: { target: path.join(dir, 'orval', 'client.ts'), client: 'fetch', mode: 'single', baseUrl: t.url },
    } as never,
    undefined,
    { logLevel: 'error', throwOnError: true },
  );
  // `format: binary` as Blob, as openapi-typescript's documentation recommends for file bodies.
  openapiTypes = astToString(
    await openapiTS(document, {
      silent: true,
      transform: (schema) => (schema.format === 'binary' ? ts.factory.createTypeReferenceNode('Blob') : undefined),
    }),
  );
  fs.writeFileSync(path.join(dir, 'openapi-typescript.d.ts'), openapiTypes);

  const load = (file: string) => import(pathToFileURL(path.join(dir, file)).href);
  heyApi = { sdk: await load('hey-api/sdk.gen.ts'), client: (await load('hey-api/client.gen.ts')).client };
  heyApi.client.setConfig({ baseUrl: t.url, auth: () => key });
  orval = await load('orval/client.ts');
  png = execFileSync(ffmpegPath(), [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=64x64',
    '-frames:v',
    '1',
    '-f',
    'image2pipe',
    '-c:v',
    'png',
    '-',
  ]);
}, 60_000);

afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** The walk-through, in terms every client can do. */
interface Driver {
  createCollection(name: string): Promise<{ id: string }>;
  createUser(collectionId: string, body: { email: string; first_name: string }): Promise<{ id: string }>;
  setLogo(collectionId: string, image: Blob): Promise<{ branding: { logo_url: string | null } }>;
  importCsv(collectionId: string, csv: Blob): Promise<{ created: number }>;
  upload(collectionId: string, userId: string, audio: Blob): Promise<{ play_link: string }>;
  playLink(collectionId: string, userId: string): Promise<{ play_link: string | null }>;
  batch(collectionId: string, userIds: string[]): Promise<{ data: { user_id: string; play_link: string | null }[] }>;
  exportCsv(collectionId: string): Promise<string>;
  createWebhook(url: string): Promise<{ id: string; secret: string }>;
  getWebhook(id: string): Promise<{ id: string; url: string }>;
  updateWebhook(id: string, description: string): Promise<{ description?: string | null }>;
  listWebhooks(): Promise<{ data: { id: string }[] }>;
  deleteWebhook(id: string): Promise<{ deleted: boolean }>;
}

/** The data of a hey-api or openapi-fetch answer, or the failure with its status and body. */
async function dataOf<T>(pending: Promise<Result>): Promise<T> {
  const { data, error, response } = await pending;
  if (error !== undefined || !response.ok) throw new Error(`${response.status}: ${JSON.stringify(error)}`);
  return data as T;
}

const heyApiDriver = (): Driver => {
  const { sdk } = heyApi;
  const inCollection = (collection_id: string) => ({ path: { collection_id } });
  return {
    createCollection: (name) => dataOf(sdk.collectionsCreate!({ body: { name } })),
    createUser: (collectionId, body) => dataOf(sdk.usersCreate!({ ...inCollection(collectionId), body })),
    setLogo: (collectionId, image) => dataOf(sdk.collectionsSetLogo!({ ...inCollection(collectionId), body: image })),
    importCsv: (collectionId, csv) => dataOf(sdk.usersImport!({ ...inCollection(collectionId), body: csv })),
    upload: (collection_id, user_id, audio) => dataOf(sdk.recordingsUpload!({ path: { collection_id, user_id }, body: audio })),
    playLink: (collection_id, user_id) => dataOf(sdk.playLinksGet!({ path: { collection_id, user_id } })),
    batch: (collection_id, userIds) => dataOf(sdk.playLinksBatch!({ query: { collection_id, user_ids: userIds.join(',') } })),
    exportCsv: (collectionId) => dataOf(sdk.exportsCollection!({ ...inCollection(collectionId), query: { format: 'csv' } })),
    createWebhook: (url) => dataOf(sdk.webhooksCreate!({ body: { url, events: ['recording.completed'] } })),
    getWebhook: (webhook_id) => dataOf(sdk.webhooksGet!({ path: { webhook_id } })),
    updateWebhook: (webhook_id, description) => dataOf(sdk.webhooksUpdate!({ path: { webhook_id }, body: { description } })),
    listWebhooks: () => dataOf(sdk.webhooksList!()),
    deleteWebhook: (webhook_id) => dataOf(sdk.webhooksDelete!({ path: { webhook_id } })),
  };
};

/** The client openapi-fetch makes for the openapi-typescript types: untyped here, as the types are only text. */
const openapiFetchClient = () =>
  createFetchClient({ baseUrl: t.url, headers: { Authorization: `Bearer ${key}` } }) as unknown as Record<
    'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    (path: string, init?: object) => Promise<Result>
  >;

/** openapi-fetch sends a file or a CSV as it is only when told to (README.md, "Generated clients"). */
const asFile = (contentType: string) => ({ bodySerializer: (body: unknown) => body, headers: { 'Content-Type': contentType } });

const openapiFetchDriver = (): Driver => {
  const client = openapiFetchClient();
  const inCollection = (collection_id: string) => ({ params: { path: { collection_id } } });
  const webhook = (webhook_id: string) => ({ params: { path: { webhook_id } } });
  return {
    createCollection: (name) => dataOf(client.POST('/v1/collections', { body: { name } })),
    createUser: (collectionId, body) =>
      dataOf(client.POST('/v1/collections/{collection_id}/users', { ...inCollection(collectionId), body })),
    setLogo: (collectionId, image) =>
      dataOf(
        client.PUT('/v1/collections/{collection_id}/logo', {
          ...inCollection(collectionId),
          body: image,
          ...asFile('image/png'),
        }),
      ),
    importCsv: (collectionId, csv) =>
      dataOf(
        client.POST('/v1/collections/{collection_id}/users/import', {
          ...inCollection(collectionId),
          body: csv,
          ...asFile('text/csv'),
        }),
      ),
    upload: (collection_id, user_id, audio) =>
      dataOf(
        client.PUT('/v1/collections/{collection_id}/users/{user_id}/recording', {
          params: { path: { collection_id, user_id } },
          body: audio,
          ...asFile('application/octet-stream'),
        }),
      ),
    playLink: (collection_id, user_id) =>
      dataOf(
        client.GET('/v1/collections/{collection_id}/users/{user_id}/play-link', { params: { path: { collection_id, user_id } } }),
      ),
    batch: (collection_id, userIds) =>
      dataOf(client.GET('/v1/play-links/batch', { params: { query: { collection_id, user_ids: userIds.join(',') } } })),
    exportCsv: (collectionId) =>
      dataOf(
        client.GET('/v1/collections/{collection_id}/export', {
          params: { path: { collection_id: collectionId }, query: { format: 'csv' } },
          parseAs: 'text',
        }),
      ),
    createWebhook: (url) => dataOf(client.POST('/v1/webhooks', { body: { url, events: ['recording.completed'] } })),
    getWebhook: (id) => dataOf(client.GET('/v1/webhooks/{webhook_id}', webhook(id))),
    updateWebhook: (id, description) =>
      dataOf(client.PATCH('/v1/webhooks/{webhook_id}', { ...webhook(id), body: { description } })),
    listWebhooks: () => dataOf(client.GET('/v1/webhooks')),
    deleteWebhook: (id) => dataOf(client.DELETE('/v1/webhooks/{webhook_id}', webhook(id))),
  };
};

const orvalDriver = (): Driver => {
  const auth = () => ({ headers: { Authorization: `Bearer ${key}` } });
  const call = async <T>(name: string, ...args: unknown[]): Promise<T> => {
    const { status, data } = await orval[name]!(...args, auth());
    if (status >= 300) throw new Error(`${name} ${status}: ${JSON.stringify(data)}`);
    return data as T;
  };
  return {
    createCollection: (name) => call('collectionsCreate', { name }),
    createUser: (collectionId, body) => call('usersCreate', collectionId, body),
    setLogo: (collectionId, image) => call('collectionsSetLogo', collectionId, image),
    importCsv: (collectionId, csv) => call('usersImport', collectionId, csv, {}),
    upload: (collectionId, userId, audio) => call('recordingsUpload', collectionId, userId, audio),
    playLink: (collectionId, userId) => call('playLinksGet', collectionId, userId),
    batch: (collectionId, userIds) => call('playLinksBatch', { collection_id: collectionId, user_ids: userIds.join(',') }),
    // The export is CSV or ZIP by its query, so orval hands back a Blob either way.
    exportCsv: async (collectionId) => (await call<Blob>('exportsCollection', collectionId, { format: 'csv' })).text(),
    createWebhook: (url) => call('webhooksCreate', { url, events: ['recording.completed'] }),
    getWebhook: (id) => call('webhooksGet', id),
    updateWebhook: (id, description) => call('webhooksUpdate', id, { description }),
    listWebhooks: () => call('webhooksList', {}),
    deleteWebhook: (id) => call('webhooksDelete', id),
  };
};

describe.each([
  ['@hey-api/openapi-ts', heyApiDriver],
  ['openapi-typescript + openapi-fetch', openapiFetchDriver],
  ['orval', orvalDriver],
])('a client generated by %s', (generator, driver) => {
  it('creates, imports, uploads, links, exports and manages webhooks', async () => {
    const client = driver();
    const tag = generator.replace(/\W+/g, '-');
    const collection = await client.createCollection(`Generated by ${generator}`);
    const ada = await client.createUser(collection.id, { email: `ada-${tag}@example.com`, first_name: 'Ada' });
    const alan = await client.createUser(collection.id, { email: `alan-${tag}@example.com`, first_name: 'Alan' });

    const logo = await client.setLogo(collection.id, new Blob([new Uint8Array(png)], { type: 'image/png' }));
    expect(logo.branding.logo_url).toMatch(/\/logos\/[0-9a-f]{64}\.png$/);

    const csv = new Blob(['email,first_name,last_name\ngrace@example.com,Grace,Hopper\n'], { type: 'text/csv' });
    const report = await client.importCsv(collection.id, csv);
    expect(report.created).toBe(1);

    const wav = fs.readFileSync(speechWav('Ada Lovelace', 'generated-clients'));
    const uploaded = await client.upload(collection.id, ada.id, new Blob([wav], { type: 'audio/wav' }));
    expect(uploaded.play_link).toMatch(new RegExp(`^${t.url}/p/`));

    expect((await client.playLink(collection.id, ada.id)).play_link).toBe(uploaded.play_link);
    const batch = await client.batch(collection.id, [ada.id, alan.id]);
    expect(batch.data.map((item) => [item.user_id, item.play_link])).toEqual([
      [ada.id, uploaded.play_link],
      [alan.id, null],
    ]);

    const exported = await client.exportCsv(collection.id);
    expect(typeof exported).toBe('string');
    expect(exported).toContain('grace@example.com');
    expect(exported).toContain(uploaded.play_link);

    const created = await client.createWebhook(`${t.url}/hooks/${tag}`);
    expect(created.secret).toBeTruthy();
    expect((await client.getWebhook(created.id)).url).toBe(`${t.url}/hooks/${tag}`);
    expect((await client.updateWebhook(created.id, 'From a generated client')).description).toBe('From a generated client');
    expect((await client.listWebhooks()).data.map((hook) => hook.id)).toContain(created.id);
    expect((await client.deleteWebhook(created.id)).deleted).toBe(true);
    expect((await client.listWebhooks()).data.map((hook) => hook.id)).not.toContain(created.id);
  });
});

describe('what each generator sends for a file, as generated', () => {
  it('hey-api and orval send the first listed media type, application/octet-stream, with the bytes', () => {
    const heyApiSource = fs.readFileSync(path.join(dir, 'hey-api', 'sdk.gen.ts'), 'utf8');
    const upload = heyApiSource.slice(heyApiSource.indexOf('export const recordingsUpload'));
    expect(upload.slice(0, upload.indexOf('});'))).toContain("'Content-Type': 'application/octet-stream'");
    const orvalSource = fs.readFileSync(path.join(dir, 'orval', 'client.ts'), 'utf8');
    const orvalImport = orvalSource.slice(orvalSource.indexOf('export const usersImport ='));
    // The CSV is a file (`format: binary`): orval sends it as it is, not JSON-quoted.
    expect(orvalImport.slice(0, orvalImport.indexOf('\n}\n'))).toMatch(/body: usersImportBody\n/);
  });

  it('openapi-typescript types a file body as Blob, and openapi-fetch without the file options sends JSON (415)', async () => {
    expect(openapiTypes).toMatch(/"application\/octet-stream": Blob/);
    const client = openapiFetchDriver();
    const collection = await client.createCollection('openapi-fetch defaults');
    const person = await client.createUser(collection.id, { email: 'defaults@example.com', first_name: 'Dee' });
    const wav = fs.readFileSync(speechWav('Ada Lovelace', 'generated-clients'));
    const { response, error } = await openapiFetchClient().PUT('/v1/collections/{collection_id}/users/{user_id}/recording', {
      params: { path: { collection_id: collection.id, user_id: person.id } },
      body: new Blob([wav]),
    });
    expect(response.status).toBe(415);
    expect(error).toMatchObject({ error: { code: 'unsupported_media_type' } });
  });
});
