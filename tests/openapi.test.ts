import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const document = res.json();
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents the collections API with bearer auth and the custom field structure', async () => {
    const document = (await t.request({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/v1/collections', '/v1/collections/{collection_id}']));
    const create = document.paths['/v1/collections'].post;
    expect(create.security).toEqual([{ apiKey: [] }]);
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.properties.name.maxLength).toBe(255);
    expect(schema.properties.custom_fields.items.properties.type.enum).toEqual([
      'text',
      'email',
      'url',
      'number',
      'boolean',
      'select',
    ]);
    expect(document.paths['/healthz']).toBeUndefined();
  });

  it('serves the interactive reference at /docs from our own origin', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('swagger');
    expect(res.body).not.toMatch(/src="https?:\/\//);
  });
});
