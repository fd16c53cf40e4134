/**
 * A plain typed client, as a customer would make one from our OpenAPI document without the SDK:
 * openapi-typescript's types (packages/sdk/src/generated/openapi.ts) and `openapi-fetch`. The
 * recording upload needs a binary body: the document declares concrete audio types and
 * `application/octet-stream` (`Blob`), and the client sends the bytes as they are with
 * `bodySerializer` and the audio's Content-Type (openapi-fetch would otherwise send JSON, which
 * the API refuses with 415).
 */
import fs from 'node:fs';
import type { paths } from '@voicename/sdk';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let t: TestApp & { url: string };

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});

describe('openapi-fetch with the generated types', () => {
  it('uploads a recording as a binary body', async () => {
    const { key } = await t.newAccount();
    const client = createClient<paths>({ baseUrl: t.url, headers: { Authorization: `Bearer ${key}` } });
    const { data: collection } = await client.POST('/v1/collections', { body: { name: 'Plain client' } });
    if (!collection) throw new Error('collection not created');
    const { data: user } = await client.POST('/v1/collections/{collection_id}/users', {
      params: { path: { collection_id: collection.id } },
      body: { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' },
    });
    if (!user) throw new Error('user not created');

    const audio = new Blob([fs.readFileSync(speechWav('Grace Hopper', 'openapi-fetch-upload'))], { type: 'audio/wav' });
    const { data, error, response } = await client.PUT('/v1/collections/{collection_id}/users/{user_id}/recording', {
      params: { path: { collection_id: collection.id, user_id: user.id } },
      body: audio,
      bodySerializer: (body) => body,
      headers: { 'Content-Type': 'audio/wav' },
    });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data?.play_link).toMatch(new RegExp(`^${t.url}/p/`));
    expect(data?.duration_seconds).toBeGreaterThanOrEqual(1);
  });
});
