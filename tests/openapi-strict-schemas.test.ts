/**
 * Every schema of the served `/v1` OpenAPI document (components.schemas, parameters, request
 * bodies, responses and headers, webhooks included) compiles under two independent JSON Schema
 * 2020-12 validators in strict settings, so a client can validate its requests and our answers
 * with the document alone: Ajv 2020 with `strict: true` and ajv-formats' standard formats (no
 * custom format or keyword of ours), and @hyperjump/json-schema. The one allowance is the
 * keywords OpenAPI 3.1 itself defines for a Schema Object (`example`, `discriminator`, `xml`,
 * `externalDocs`), declared to Ajv with `addVocabulary` as any OpenAPI-aware client would.
 *
 * Schemas reference each other as `#/components/schemas/<Name>`, a pointer into the document; the
 * test serves the components as one schema resource (`$defs`) and points the references there.
 */
import { registerSchema, unregisterSchema, validate as hyperjumpValidate } from '@hyperjump/json-schema/draft-2020-12';
import addFormats from 'ajv-formats';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SAFE_TEXT_RULE } from '../src/lib/text.js';
import { createTestApp, type TestApp } from './helpers/app.js';

type Json = unknown;
type JsonObject = Record<string, Json>;

const OPENAPI_SCHEMA_KEYWORDS = ['example', 'discriminator', 'xml', 'externalDocs'];
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';
const COMPONENTS_URI = 'https://openapi.test/components.schema.json';
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

let t: TestApp;
let document: JsonObject;
beforeAll(async () => {
  t = await createTestApp();
  const res = await t.request({ method: 'GET', url: '/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  document = res.json();
});
afterAll(() => t.close());

const isObject = (value: Json): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const entries = (value: Json): [string, JsonObject][] =>
  isObject(value) ? (Object.entries(value).filter(([, item]) => isObject(item)) as [string, JsonObject][]) : [];

/** `#/components/schemas/X` → the components resource's `$defs/X`, in a copy. */
const pointToComponents = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(pointToComponents);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === '$ref' && typeof item === 'string'
        ? item.replace(/^#\/components\/schemas\//, `${COMPONENTS_URI}#/$defs/`)
        : pointToComponents(item),
    ]),
  );
};

/** Every schema of the document, by where it is, references pointed at the components resource. */
function documentSchemas(): Map<string, JsonObject> {
  const found = new Map<string, JsonObject>();
  const add = (where: string, schema: Json) => {
    if (isObject(schema)) found.set(where, pointToComponents(schema) as JsonObject);
  };
  const components = (document.components ?? {}) as JsonObject;
  for (const [name, schema] of entries(components.schemas)) add(`components.schemas.${name}`, schema);
  for (const [name, header] of entries(components.headers)) add(`components.headers.${name}`, header.schema);
  const operations = [
    ...entries(document.paths).map(([path, item]) => [path, item] as const),
    ...entries(document.webhooks).map(([name, item]) => [`webhook ${name}`, item] as const),
  ];
  for (const [path, item] of operations) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = `${method.toUpperCase()} ${path}`;
      for (const parameter of (operation.parameters ?? []) as JsonObject[]) {
        add(`${at} ${parameter.in} parameter ${parameter.name}`, parameter.schema);
      }
      const body = operation.requestBody as JsonObject | undefined;
      for (const [type, media] of entries(body?.content)) add(`${at} request body ${type}`, media.schema);
      for (const [status, response] of entries(operation.responses)) {
        for (const [type, media] of entries(response.content)) add(`${at} ${status} ${type}`, media.schema);
        for (const [name, header] of entries(response.headers)) add(`${at} ${status} header ${name}`, header.schema);
      }
    }
  }
  return found;
}

function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true });
  addFormats.default(ajv);
  // Allowed only because OpenAPI 3.1 defines them for Schema Objects: nothing of our own.
  ajv.addVocabulary(OPENAPI_SCHEMA_KEYWORDS);
  const components = (document.components as JsonObject).schemas;
  ajv.addSchema({ $id: COMPONENTS_URI, $defs: pointToComponents(components) });
  return ajv;
}

describe('the /v1 OpenAPI document under strict JSON Schema 2020-12 validators', () => {
  let schemas: Map<string, JsonObject>;
  beforeAll(() => {
    schemas = documentSchemas();
    const components = (document.components as JsonObject).schemas;
    registerSchema({ $schema: DIALECT, $id: COMPONENTS_URI, $defs: pointToComponents(components) } as never);
  });
  afterAll(() => unregisterSchema(COMPONENTS_URI));

  it('finds the schemas of components, parameters, request bodies and responses', () => {
    const places = [...schemas.keys()];
    expect(places).toEqual(
      expect.arrayContaining(['components.schemas.User', 'components.schemas.Collection', 'components.schemas.Error']),
    );
    for (const part of [' parameter ', ' request body ', ' 200 ', ' header ']) {
      expect(
        places.some((place) => place.includes(part)),
        part,
      ).toBe(true);
    }
  });

  it("says a name's NFC in its description: the server's own keyword for it stays out of the document", () => {
    const text = JSON.stringify(document);
    expect(text).not.toContain('"x-nfc"');
    const createUser = (document.components as { schemas: Record<string, { properties: Record<string, JsonObject> }> }).schemas
      .CreateUser!;
    expect(createUser.properties.first_name!.description).toContain('Unicode NFC');
    expect(createUser.properties.pronouns!.description ?? '').not.toContain('Unicode NFC');
  });

  it('each compiles under Ajv 2020 strict with standard formats only, without a warning', () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      const ajv = strictAjv();
      const failures: string[] = [];
      for (const [where, schema] of schemas) {
        try {
          ajv.compile(schema);
        } catch (error) {
          failures.push(`${where}: ${(error as Error).message}`);
        }
      }
      expect(failures).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('each compiles under @hyperjump/json-schema (draft 2020-12)', async () => {
    const failures: string[] = [];
    let index = 0;
    for (const [where, schema] of schemas) {
      const uri = `https://openapi.test/schema-${index++}.schema.json`;
      registerSchema({ $schema: DIALECT, ...schema, $id: uri });
      try {
        await hyperjumpValidate(uri);
      } catch (error) {
        failures.push(`${where}: ${(error as Error).message}`);
      } finally {
        unregisterSchema(uri);
      }
    }
    expect(failures).toEqual([]);
  });

  describe('a client validating with the document refuses what the server refuses', () => {
    const path = '/v1/collections/{collection_id}/users';
    let key: string;
    let collectionId: string;
    let ajvValidate: (data: unknown) => boolean;
    const uri = 'https://openapi.test/create-user.schema.json';
    beforeAll(async () => {
      const body = ((document.paths as JsonObject)[path] as JsonObject).post as JsonObject;
      const schema = pointToComponents(
        ((body.requestBody as JsonObject).content as Record<string, JsonObject>)['application/json']!.schema,
      ) as JsonObject;
      ajvValidate = strictAjv().compile(schema) as (data: unknown) => boolean;
      registerSchema({ $schema: DIALECT, ...schema, $id: uri });
      ({ key } = await t.newAccount());
      const collection = await t.request({
        method: 'POST',
        url: '/v1/collections',
        key,
        json: { name: 'Strict', custom_fields: [{ key: 'team', label: 'Team', type: 'text' }] },
      });
      collectionId = collection.json().id;
    });
    afterAll(() => unregisterSchema(uri));

    /** The three verdicts, and the server's error for a refusal. */
    const verdicts = async (user: JsonObject) => {
      const res = await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users`, key, json: user });
      expect([201, 400], res.body).toContain(res.statusCode);
      return {
        verdicts: {
          ajv: ajvValidate(structuredClone(user)),
          hyperjump: (await hyperjumpValidate(uri, user as never)).valid,
          server: res.statusCode === 201,
        },
        error: res.statusCode === 400 ? (res.json().error as JsonObject) : undefined,
      };
    };

    let sent = 0;
    const person = (fields: JsonObject): JsonObject => ({ email: `person${sent++}@example.com`, ...fields });
    const accepted: [string, JsonObject][] = [
      ['a plain name', { first_name: 'Ada', last_name: 'Lovelace' }],
      ['a name with an emoji and accents', { first_name: 'Ada 🤖', last_name: 'Lövelace' }],
      ['a line break in a custom field value', { first_name: 'Ada', custom_fields: { team: 'one\ntwo' } }],
    ];
    // Refused by the server as before the rule was a pattern: 400 parameter_invalid naming the field.
    const refused: [string, JsonObject, string][] = [
      ['a bidi override in the first name', { first_name: 'abc\u202Egnp', last_name: 'Lovelace' }, 'first_name'],
      ['NUL in the last name', { first_name: 'Ada', last_name: 'Love\u0000lace' }, 'last_name'],
      ['a lone surrogate in the display name', { first_name: 'Ada', display_name: 'A\uD800' }, 'display_name'],
      ['a C1 control in the pronouns', { first_name: 'Ada', pronouns: 'she\u0085her' }, 'pronouns'],
      ['a tab in a one-line field', { first_name: 'Ada\tB' }, 'first_name'],
      [
        'a bidi isolate in a custom field value',
        { first_name: 'Ada', custom_fields: { team: 'a\u2066b' } },
        'custom_fields.team',
      ],
    ];
    for (const [label, user] of accepted) {
      it(`all accept: ${label}`, async () => {
        expect((await verdicts(person(user))).verdicts).toEqual({ ajv: true, hyperjump: true, server: true });
      });
    }
    for (const [label, user, field] of refused) {
      it(`all refuse: ${label}`, async () => {
        const { verdicts: all, error } = await verdicts(person(user));
        expect(all).toEqual({ ajv: false, hyperjump: false, server: false });
        expect(error).toMatchObject({
          type: 'invalid_request_error',
          code: 'parameter_invalid',
          param: field,
          message: `Invalid field "${field}": ${SAFE_TEXT_RULE}.`,
        });
      });
    }

    it('a query parameter with a bidi override: 400 naming the parameter, as the document says', async () => {
      const res = await t.request({
        method: 'GET',
        url: `/v1/collections/${collectionId}/users?email=${encodeURIComponent('a\u202Eb@example.com')}`,
        key,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({
        code: 'parameter_invalid',
        param: 'email',
        message: `Invalid query parameter "email": ${SAFE_TEXT_RULE}.`,
      });
    });
  });
});
