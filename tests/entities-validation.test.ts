/**
 * Exact 400 bodies of POST /api/entities/generate for every rule of the request table, each at
 * its boundary, and fuzzing of the body (no input ever yields a 5xx).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_TYPES } from '../src/features/agent-api/request-schema.js';
import { VOICE_STYLE_NAMES } from '../src/speech/synthesizer.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { generate, publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp;
const SITE = 'http://localhost:3000';
beforeAll(async () => {
  t = await createTestApp({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000000' }, overrides: fakeSpeech() });
});
afterAll(() => t.close());

const schema_url = `${SITE}/schemas/entity-generation.schema.json`;
const docs_url = `${SITE}/llms.txt`;
const RULES = {
  name: 'a string of 1 to 100 characters with at least one letter or digit, not already taken or imitating a taken name',
  description: 'a string of 10 to 1000 characters',
  operator: 'a string of 1 to 200 characters',
  url: 'an https: URL or a path on this site, at most 2048 characters',
  intro: 'a string of at most 500 characters',
  metadata: 'a JSON object at most 5 levels deep, 50 keys per object, 50 items per array, 8192 bytes',
  agent_id: 'a string of 1 to 200 characters',
  callback_url: 'a public https: URL of at most 2048 characters',
  language: 'a BCP 47 language tag such as en-GB or fr',
};

async function expectInvalid(body: unknown, field: string, received: unknown, allowed: unknown[]) {
  const res = await generate(t, body);
  expect(res.statusCode, res.body).toBe(400);
  const json = res.json();
  expect(json).toEqual({
    status: 'invalid_request',
    missing: [],
    invalid: [{ field, received, allowed }],
    message: json.message,
    schema_url,
    docs_url,
  });
  expect(typeof json.message).toBe('string');
  expect(json.message).toContain(field);
  return json;
}

async function expectValid(body: unknown) {
  const res = await generate(t, body);
  expect(res.statusCode, res.body).toBe(402);
}

describe('missing fields', () => {
  for (const field of ['name', 'entity_type', 'description', 'operator', 'visibility']) {
    it(`without ${field}: 400 with missing ["${field}"]`, async () => {
      const body = validBody();
      delete body[field];
      const res = await generate(t, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        status: 'invalid_request',
        missing: [field],
        invalid: [],
        message: `The request is invalid: missing required field(s): ${field}.`,
        schema_url,
        docs_url,
      });
    });
  }

  it('an empty object lists every required field, in the table order', async () => {
    const res = await generate(t, {});
    expect(res.json()).toMatchObject({ missing: ['name', 'entity_type', 'description', 'operator', 'visibility'], invalid: [] });
  });

  it('several problems are all reported at once', async () => {
    const res = await generate(t, {
      name: 'x'.repeat(101),
      entity_type: 'toaster',
      description: 'short',
      visibility: 'public',
      extra: 1,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().missing).toEqual(['operator']);
    expect(res.json<{ invalid: { field: string }[] }>().invalid.map((i) => i.field)).toEqual([
      'name',
      'entity_type',
      'description',
      'extra',
    ]);
  });
});

describe('name', () => {
  it('accepts 100 characters (also multi-byte) and refuses 101', async () => {
    await expectValid(validBody({ name: `N${'a'.repeat(94)}${Date.now().toString().slice(-5)}` }));
    await expectValid(validBody({ name: `é${'é'.repeat(94)}${Date.now().toString().slice(-5)}` }));
    const name = 'n'.repeat(101);
    await expectInvalid(validBody({ name }), 'name', name, [RULES.name]);
  });

  it('refuses empty names, names with no letter or digit, and non-strings', async () => {
    await expectInvalid(validBody({ name: '' }), 'name', '', [RULES.name]);
    await expectInvalid(validBody({ name: '!!! ---' }), 'name', '!!! ---', [RULES.name]);
    await expectInvalid(validBody({ name: 42 }), 'name', 42, [RULES.name]);
    await expectInvalid(validBody({ name: null }), 'name', null, [RULES.name]);
  });

  it('refuses a taken name, compared by slug: case, accents and punctuation do not matter', async () => {
    await publishEntity(t, validBody({ name: 'Café Bot' }));
    for (const name of ['Café Bot', 'CAFE BOT', 'cafe-bot', '  Cafe   bot!! ', 'Cafè Böt'.replace('ö', 'o')]) {
      const json = await expectInvalid(validBody({ name }), 'name', name, [RULES.name]);
      expect(json.message).toContain('already taken');
    }
  });
});

describe('enums', () => {
  it('entity_type: every allowed value works; others list them all', async () => {
    for (const entity_type of ENTITY_TYPES) await expectValid(validBody({ entity_type }));
    await expectInvalid(validBody({ entity_type: 'toaster' }), 'entity_type', 'toaster', [...ENTITY_TYPES]);
    await expectInvalid(validBody({ entity_type: 'AI_AGENT' }), 'entity_type', 'AI_AGENT', [...ENTITY_TYPES]);
  });

  it('visibility: public and unlisted only', async () => {
    await expectValid(validBody({ visibility: 'unlisted' }));
    await expectInvalid(validBody({ visibility: 'private' }), 'visibility', 'private', ['public', 'unlisted']);
  });

  it('voice_style: the documented styles only', async () => {
    for (const voice_style of VOICE_STYLE_NAMES) await expectValid(validBody({ voice_style }));
    await expectInvalid(validBody({ voice_style: 'opera' }), 'voice_style', 'opera', [...VOICE_STYLE_NAMES]);
  });
});

describe('lengths at their boundaries', () => {
  it('description: 10 to 1000 characters', async () => {
    await expectInvalid(validBody({ description: 'd'.repeat(9) }), 'description', 'd'.repeat(9), [RULES.description]);
    await expectValid(validBody({ description: 'd'.repeat(10) }));
    await expectValid(validBody({ description: 'd'.repeat(1000) }));
    const json = await expectInvalid(validBody({ description: 'd'.repeat(1001) }), 'description', `${'d'.repeat(200)}…`, [
      RULES.description,
    ]);
    expect(json.message).toContain('10 to 1000');
  });

  it('intro: at most 500 characters', async () => {
    await expectValid(validBody({ intro: 'i'.repeat(500) }));
    await expectValid(validBody({ intro: '' }));
    await expectInvalid(validBody({ intro: 'i'.repeat(501) }), 'intro', `${'i'.repeat(200)}…`, [RULES.intro]);
  });

  it('operator: 1 to 200 characters', async () => {
    await expectInvalid(validBody({ operator: '' }), 'operator', '', [RULES.operator]);
    await expectValid(validBody({ operator: 'o'.repeat(200) }));
    await expectInvalid(validBody({ operator: 'o'.repeat(201) }), 'operator', `${'o'.repeat(200)}…`, [RULES.operator]);
  });

  it('agent_id: 1 to 200 characters', async () => {
    await expectValid(validBody({ agent_id: 'a'.repeat(200) }));
    await expectInvalid(validBody({ agent_id: 'a'.repeat(201) }), 'agent_id', `${'a'.repeat(200)}…`, [RULES.agent_id]);
  });
});

describe('URLs', () => {
  for (const field of ['avatar_url', 'source_url']) {
    it(`${field}: https: or a path on this site only`, async () => {
      await expectValid(validBody({ [field]: 'https://cdn.example.com/a.png' }));
      await expectValid(validBody({ [field]: '/assets/a.png' }));
      for (const bad of [
        'http://example.com/a.png',
        'javascript:alert(1)',
        '//evil.example/a.png',
        'data:image/png;base64,AAAA',
        'not a url',
        '',
      ]) {
        await expectInvalid(validBody({ [field]: bad }), field, bad, [RULES.url]);
      }
      const long = `https://example.com/${'a'.repeat(2029)}`;
      expect(long.length).toBe(2049);
      await expectInvalid(validBody({ [field]: long }), field, `${long.slice(0, 200)}…`, [RULES.url]);
    });
  }

  it('callback_url: public https only (http is refused unless WEBHOOK_ALLOW_PRIVATE_URLS)', async () => {
    await expectValid(validBody({ callback_url: 'https://hooks.example.com/voicename' }));
    await expectInvalid(validBody({ callback_url: 'http://hooks.example.com/' }), 'callback_url', 'http://hooks.example.com/', [
      RULES.callback_url,
    ]);
    await expectInvalid(validBody({ callback_url: 'ftp://x' }), 'callback_url', 'ftp://x', [RULES.callback_url]);
  });

  it('callback_url and avatar_url on a private or loopback address are refused before any 402', async () => {
    const callbackRule = 'a public https: URL (its host resolving to public addresses only)';
    for (const url of [
      'https://10.0.0.7/hook',
      'https://[fd00::1]/hook',
      'https://169.254.169.254/latest',
      'https://localhost/hook',
    ]) {
      await expectInvalid(validBody({ callback_url: url }), 'callback_url', url, [callbackRule]);
    }
    const avatarRule = 'an https: URL on a public host, or a path on this site';
    await expectInvalid(validBody({ avatar_url: 'https://192.168.1.20/me.png' }), 'avatar_url', 'https://192.168.1.20/me.png', [
      avatarRule,
    ]);
    // An avatar is shown, never fetched: its host name is not resolved, so an unknown name is fine.
    await expectValid(validBody({ avatar_url: 'https://cdn.example.com/bot.png' }));
  });

  it('language: a BCP 47 tag', async () => {
    await expectValid(validBody({ language: 'en-GB' }));
    await expectValid(validBody({ language: 'fr' }));
    await expectInvalid(validBody({ language: 'english!' }), 'language', 'english!', [RULES.language]);
  });
});

describe('external_metadata', () => {
  const nest = (depth: number): unknown => (depth === 0 ? 'leaf' : { k: nest(depth - 1) });

  it('accepts an object up to 5 levels deep and refuses 6', async () => {
    await expectValid(validBody({ external_metadata: nest(5) }));
    await expectInvalid(validBody({ external_metadata: nest(6) }), 'external_metadata', 'object', [RULES.metadata]);
  });

  it('accepts 50 keys and refuses 51; refuses arrays, strings and oversize objects', async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    await expectValid(validBody({ external_metadata: keys(50) }));
    await expectInvalid(validBody({ external_metadata: keys(51) }), 'external_metadata', 'object', [RULES.metadata]);
    await expectInvalid(validBody({ external_metadata: [1, 2] }), 'external_metadata', 'array', [RULES.metadata]);
    await expectInvalid(validBody({ external_metadata: 'x' }), 'external_metadata', 'x', [RULES.metadata]);
    const big = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));
    await expectInvalid(validBody({ external_metadata: big }), 'external_metadata', 'object', [RULES.metadata]);
  });
});

describe('body shape', () => {
  it('refuses unknown fields by name', async () => {
    await expectInvalid(validBody({ price: '0.01' }), 'price', '0.01', ['not a field of this request']);
  });

  it('refuses a JSON value that is not an object', async () => {
    for (const body of [[], 'text', 42, null]) {
      await expectInvalid(body, 'body', Array.isArray(body) ? 'array' : body, ['a JSON object']);
    }
  });

  it('answers malformed JSON, a wrong content type, an empty and a too-large body in the same 400 shape', async () => {
    const send = (payload: string, contentType = 'application/json') =>
      t.app.inject({ method: 'POST', url: '/api/entities/generate', headers: { 'content-type': contentType }, payload });
    const cases = [
      { res: await send('{"name": '), received: 'malformed JSON', allowed: ['a JSON object'] },
      { res: await send('name=x', 'text/plain'), received: 'text/plain', allowed: ['application/json'] },
      {
        res: await send('name=x', 'application/x-www-form-urlencoded'),
        received: 'application/x-www-form-urlencoded',
        allowed: ['application/json'],
      },
      { res: await send(''), received: '', allowed: ['a JSON object'] },
      {
        res: await send(JSON.stringify({ ...validBody(), intro: 'x'.repeat(70_000) })),
        received: 'more than 65536 bytes',
        allowed: ['a JSON object of at most 65536 bytes'],
      },
    ];
    for (const { res, received, allowed } of cases) {
      expect(res.statusCode, res.body).toBe(400);
      const json = res.json();
      expect(json).toEqual({
        status: 'invalid_request',
        missing: [],
        invalid: [{ field: 'body', received, allowed }],
        message: json.message,
        schema_url,
        docs_url,
      });
      expect(json.error).toBeUndefined();
    }
  });
});

describe('fuzzing', () => {
  const field = fc.oneof(
    fc.string({ maxLength: 120 }),
    fc.string({ unit: 'grapheme', maxLength: 60 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.anything(), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.anything({ maxDepth: 3 }), { maxKeys: 4 }),
    fc.constantFrom(...ENTITY_TYPES, 'public', 'unlisted', 'https://example.com/a', '/x', ...VOICE_STYLE_NAMES),
  );
  const bodyArb = fc.record(
    {
      name: fc.oneof(field, fc.string({ minLength: 1, maxLength: 100 })),
      entity_type: fc.oneof(field, fc.constantFrom(...ENTITY_TYPES)),
      description: fc.oneof(field, fc.string({ minLength: 10, maxLength: 200 })),
      operator: field,
      visibility: fc.oneof(field, fc.constantFrom('public', 'unlisted')),
      avatar_url: field,
      source_url: field,
      voice_style: field,
      intro: field,
      external_metadata: fc.oneof(field, fc.object({ maxDepth: 6 })),
      agent_id: field,
      callback_url: field,
      __proto__: field,
      constructor: field,
    },
    { requiredKeys: [] },
  );

  it('never answers 5xx to thousands of generated bodies, and every 4xx has the spec shape', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        const res = await generate(t, body);
        expect(res.statusCode).toBeLessThan(500);
        expect([400, 402]).toContain(res.statusCode);
        const json = res.json();
        if (res.statusCode === 400) {
          expect(json.status).toBe('invalid_request');
          expect(Array.isArray(json.missing) && Array.isArray(json.invalid)).toBe(true);
          for (const item of json.invalid) expect(Array.isArray(item.allowed)).toBe(true);
        } else {
          expect(json.status).toBe('payment_required');
        }
      }),
      { numRuns: 2000 },
    );
  }, 120_000);

  it('never answers 5xx to arbitrary raw payloads and payment headers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 300 }), fc.option(fc.string({ maxLength: 300 })), async (payload, header) => {
        const res = await t.app.inject({
          method: 'POST',
          url: '/api/entities/generate',
          headers: {
            'content-type': 'application/json',
            ...(header === null ? {} : { 'payment-authorization': header.replace(/[\r\n\0]/g, '') }),
          },
          payload,
        });
        expect(res.statusCode).toBeLessThan(500);
      }),
      { numRuns: 1000 },
    );
  }, 60_000);
});
