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
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateCollection' });
    const schema = document.components.schemas.CreateCollection;
    expect(schema.properties.name.maxLength).toBe(255);
    expect(schema.properties.custom_fields.items).toEqual({ $ref: '#/components/schemas/CustomField' });
    expect(document.components.schemas.CustomField.properties.type.enum).toEqual([
      'text',
      'email',
      'url',
      'number',
      'boolean',
      'select',
    ]);
    expect(document.paths['/healthz']).toBeUndefined();
  });

  it('is drawn by the API reference at /docs/reference, from our own origin', async () => {
    const res = await t.request({ method: 'GET', url: '/docs/reference' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('data-url="/v1/openapi.json"');
    expect(res.body).not.toMatch(/src="https?:\/\//);
    const bundle = /<script src="(\/docs\/assets\/scalar\.[0-9a-f]+\.js)">/.exec(res.body)?.[1];
    expect(bundle).toBeDefined();
    expect((await t.request({ method: 'GET', url: bundle })).statusCode).toBe(200);
  });
});
