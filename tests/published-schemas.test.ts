/**
 * Every JSON Schema the service publishes compiles under two independent validators in their
 * strict default settings (Ajv 2020 with nothing registered, @hyperjump/json-schema 2020-12), and
 * both accept and refuse the same requests as the server's real endpoint (unpaid: 402 for a valid
 * request, 400 for an invalid one). The rules JSON Schema cannot express are listed in
 * SERVER_ONLY (valid for the validators, refused by the server), as docs/entities.md says.
 */
import { registerSchema, unregisterSchema, validate as hyperjumpValidate } from '@hyperjump/json-schema/draft-2020-12';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { generate, publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp;
let takenName: string;
beforeAll(async () => {
  t = await createTestApp({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000000' }, overrides: fakeSpeech() });
  takenName = `Zoë Concierge ${process.pid}`;
  await publishEntity(t, validBody({ name: takenName }));
});
afterAll(() => t.close());

const SCHEMA_TYPE = 'application/schema+json';

/** The schema addresses the discovery document and the API catalog advertise, as site paths. */
async function publishedSchemaPaths(): Promise<string[]> {
  const discovery = (await t.app.inject({ url: '/.well-known/service-agent-services.json' })).json();
  const catalog = (await t.app.inject({ url: '/.well-known/api-catalog' })).json();
  const urls = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (typeof item === 'string' && key.endsWith('schema_url')) urls.add(item);
      }
      const link = value as { href?: unknown; type?: unknown };
      if (typeof link.href === 'string' && link.type === SCHEMA_TYPE) urls.add(link.href);
      Object.values(value).forEach(walk);
    }
  };
  walk(catalog);
  walk(discovery);
  return [...urls].map((url) => new URL(url).pathname);
}

/** The input schemas of the MCP tools (tools/list), by tool name. */
async function mcpToolSchemas(): Promise<Map<string, Record<string, unknown>>> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(res.statusCode, res.body).toBe(200);
  const { tools } = res.json().result as { tools: Array<{ name: string; inputSchema: Record<string, unknown> }> };
  return new Map(tools.map((tool) => [`MCP tool ${tool.name}`, tool.inputSchema]));
}

const repeat = (text: string, count: number) => text.repeat(count);
const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { level: nested(depth - 1) });
const manyKeys = (count: number, value: unknown = 1) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, value]));
const decomposed = (text: string) => text.normalize('NFD');

/** Accepted by the validators and by the server (402). Names are unique per body. */
const VALID: Array<[string, () => Record<string, unknown>]> = [
  ['the required fields only', () => validBody()],
  [
    'every optional field',
    () =>
      validBody({
        avatar_url: 'https://images.example.com/a.png',
        source_url: 'https://agent.example.com/',
        voice_style: 'neutral',
        language: 'en-GB',
        name_language: 'es',
        intro: 'Hello there.',
        external_metadata: { team: 'sales', tags: ['a', 'b'], score: 1.5, live: true, none: null },
        agent_id: 'agent-42',
        callback_url: 'https://hooks.example.com/voicename',
      }),
  ],
  [
    'tabs and line breaks in description and intro',
    () => validBody({ description: 'Line one\n\tLine two\r\n', intro: 'a\tb\nc' }),
  ],
  ['a name of 100 characters', () => validBody({ name: `${validBody().name} ${repeat('x', 100)}`.slice(0, 100) })],
  ['a name in Greek', () => validBody({ name: `Ερμής ${Math.random().toString().slice(2, 8)}` })],
  ['a name in Han', () => validBody({ name: `小助手${Math.random().toString().slice(2, 8)}` })],
  ['a composed name (NFC)', () => validBody({ name: `Zoë Helper ${Math.random().toString().slice(2, 8)}` })],
  [
    'a decomposed name (NFD): the same rules as composed',
    () => validBody({ name: decomposed(`Zoë Aide ${Math.random().toString().slice(2, 8)}`) }),
  ],
  ['a description of exactly 10 and an operator of 1', () => validBody({ description: repeat('d', 10), operator: 'O' })],
  ['a description of 1000 characters', () => validBody({ description: repeat('d', 1000) })],
  ['an emoji (surrogate pair) in the operator', () => validBody({ operator: 'Robots 🤖 Inc' })],
  ['metadata 5 levels deep', () => validBody({ external_metadata: nested(5) as Record<string, unknown> })],
  ['metadata with 50 keys', () => validBody({ external_metadata: manyKeys(50) })],
  ['metadata array of 50 items', () => validBody({ external_metadata: { list: Array.from({ length: 50 }, (_, i) => i) } })],
  ['avatar and source as paths on this site', () => validBody({ avatar_url: '/static/robot.png', source_url: '/e/somebody' })],
  ['percent-escapes in either case in URLs', () => validBody({ avatar_url: 'https://images.example.com/a%C3%a9.png' })],
  ['every entity type and visibility unlisted', () => validBody({ entity_type: 'brand_mascot', visibility: 'unlisted' })],
  ['language tags with subtags', () => validBody({ language: 'zh-Hans-CN', name_language: 'sr-Latn' })],
];

/** Refused by the validators and by the server (400). */
const INVALID: Array<[string, () => unknown]> = [
  ['an empty object', () => ({})],
  ['without name', () => ({ ...validBody(), name: undefined })],
  ['an empty name', () => validBody({ name: '' })],
  ['a name of 101 characters', () => validBody({ name: repeat('n', 101) })],
  // Lengths count the code points sent: 51 "é" decomposed are 102, though NFC makes them 51.
  ['a decomposed name longer than 100 code points as sent', () => validBody({ name: decomposed(repeat('é', 51)) })],
  ['a tab in the name', () => validBody({ name: 'Tab\tName' })],
  ['a bidi override in the name', () => validBody({ name: 'abc\u202Egnp' })],
  ['NUL in the operator', () => validBody({ operator: 'Acme\u0000' })],
  ['a C1 control in the description', () => validBody({ description: 'Next line\u0085 here.' })],
  ['a bidi isolate in the intro', () => validBody({ intro: 'a\u2066b' })],
  ['a lone surrogate in agent_id', () => validBody({ agent_id: 'id\uD800' })],
  ['DEL in a metadata string', () => validBody({ external_metadata: { note: 'x\u007F' } })],
  ['a description of 9 characters', () => validBody({ description: repeat('d', 9) })],
  ['a description of 1001 characters', () => validBody({ description: repeat('d', 1001) })],
  ['an intro of 501 characters', () => validBody({ intro: repeat('i', 501) })],
  ['an empty agent_id', () => validBody({ agent_id: '' })],
  ['an unknown entity type', () => validBody({ entity_type: 'robot' })],
  ['an unknown visibility', () => validBody({ visibility: 'private' })],
  ['an unknown voice style', () => validBody({ voice_style: 'loud' })],
  ['an unknown field', () => validBody({ colour: 'blue' })],
  ['a number for the name', () => validBody({ name: 42 })],
  ['an array for the metadata', () => validBody({ external_metadata: ['a'] })],
  ['metadata 6 levels deep', () => validBody({ external_metadata: nested(6) as Record<string, unknown> })],
  ['metadata with 51 keys', () => validBody({ external_metadata: manyKeys(51) })],
  ['a metadata array of 51 items', () => validBody({ external_metadata: { list: Array.from({ length: 51 }, () => 1) } })],
  ['a metadata string of 1001 characters', () => validBody({ external_metadata: { note: repeat('m', 1001) } })],
  ['an http: avatar', () => validBody({ avatar_url: 'http://images.example.com/a.png' })],
  ['a protocol-relative avatar', () => validBody({ avatar_url: '//evil.example/a.png' })],
  ['an avatar URL with characters RFC 3986 refuses', () => validBody({ avatar_url: 'https://images.example.com/<a>.png' })],
  ['a source URL with a space', () => validBody({ source_url: 'https://agent.example.com/a b' })],
  ['a callback URL with a broken percent-escape', () => validBody({ callback_url: 'https://hooks.example.com/a%zz' })],
  ['an ftp: callback URL', () => validBody({ callback_url: 'ftp://hooks.example.com/' })],
  ['a callback URL of 2049 characters', () => validBody({ callback_url: `https://hooks.example.com/${repeat('a', 2023)}` })],
  ['a language that is no tag', () => validBody({ language: 'english!' })],
  ['a name_language of digits', () => validBody({ name_language: '1234' })],
];

/**
 * Rules JSON Schema cannot express, so the validators accept and the server refuses (400): the
 * NFC and byte-size rules, the grammar of a language tag, the name's letters, script mix and
 * availability, and where a callback may point. docs/entities.md lists the same.
 */
const SERVER_ONLY: Array<[string, () => Record<string, unknown>]> = [
  ['NFC: a taken name sent decomposed (the same name once composed)', () => validBody({ name: decomposed(takenName) })],
  [
    'bytes: metadata within every structural limit but over 8192 bytes',
    () => validBody({ external_metadata: manyKeys(20, repeat('b', 500)) }),
  ],
  ['grammar: a name_language with the shape of a tag but not its grammar', () => validBody({ name_language: 'en-xx-yy' })],
  ['name: no letter or digit', () => validBody({ name: '!!! ???' })],
  ['name: Latin with a Cyrillic look-alike letter', () => validBody({ name: `P\u0430ypal Helper ${process.pid}` })],
  ['callback: a private address', () => validBody({ callback_url: 'https://10.0.0.1/hook' })],
];

describe('published JSON Schemas', () => {
  let paths: string[];
  const schemas = new Map<string, Record<string, unknown>>();
  beforeAll(async () => {
    paths = await publishedSchemaPaths();
    for (const path of paths) {
      const res = await t.app.inject({ url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.headers['content-type']).toContain(SCHEMA_TYPE);
      schemas.set(path, res.json());
    }
    for (const [name, schema] of await mcpToolSchemas()) schemas.set(name, schema);
  });

  it('the discovery document and the catalog advertise the request schema; the MCP tools publish theirs', () => {
    expect(paths).toContain('/schemas/entity-generation.schema.json');
    expect([...schemas.keys()]).toEqual(expect.arrayContaining(['MCP tool hear_play_link', 'MCP tool generate_entity']));
  });

  it('each compiles under Ajv 2020 with default (strict) options, without a strict-mode warning', () => {
    const warn = vi.spyOn(console, 'warn');
    try {
      for (const [path, schema] of schemas) expect(() => new Ajv2020().compile(schema), path).not.toThrow();
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('each compiles under @hyperjump/json-schema (draft 2020-12)', async () => {
    for (const [path, schema] of schemas) {
      const uri = `https://schemas.test/${encodeURIComponent(path)}`;
      registerSchema({ ...schema, $id: uri });
      try {
        expect((await hyperjumpValidate(uri, {})).valid, path).toBe(false);
      } finally {
        unregisterSchema(uri);
      }
    }
  });

  describe('the request schema, both validators and the server agree on a shared corpus', () => {
    const path = '/schemas/entity-generation.schema.json';
    const uri = `https://schemas.test${path}`;
    let ajvValidate: (data: unknown) => boolean;
    beforeAll(() => {
      const schema = schemas.get(path) as Record<string, unknown>;
      ajvValidate = new Ajv2020().compile(schema) as (data: unknown) => boolean;
      registerSchema({ ...schema, $id: uri });
    });
    afterAll(() => unregisterSchema(uri));

    // The body goes through JSON as an agent sends it (undefined fields drop out).
    const verdicts = async (body: unknown) => {
      const sent = JSON.parse(JSON.stringify(body)) as unknown;
      const res = await generate(t, sent);
      expect([400, 402], res.body).toContain(res.statusCode);
      return {
        ajv: ajvValidate(structuredClone(sent)),
        hyperjump: (await hyperjumpValidate(uri, sent as never)).valid,
        server: res.statusCode === 402,
      };
    };

    it(`has at least 15 valid and 25 invalid requests (${VALID.length} and ${INVALID.length})`, () => {
      expect(VALID.length).toBeGreaterThanOrEqual(15);
      expect(INVALID.length).toBeGreaterThanOrEqual(25);
    });

    for (const [label, body] of VALID) {
      it(`valid for all three: ${label}`, async () => {
        expect(await verdicts(body())).toEqual({ ajv: true, hyperjump: true, server: true });
      });
    }
    for (const [label, body] of INVALID) {
      it(`refused by all three: ${label}`, async () => {
        expect(await verdicts(body())).toEqual({ ajv: false, hyperjump: false, server: false });
      });
    }
    for (const [label, body] of SERVER_ONLY) {
      it(`valid for the validators, refused by the server only: ${label}`, async () => {
        expect(await verdicts(body())).toEqual({ ajv: true, hyperjump: true, server: false });
      });
    }
  });
});
