/**
 * The whole agent journey on the sandbox processor, from a clean start, the way an agent without
 * an account would do it: discovery → schema → 400 → 402 → confirm → 200 → profile page,
 * service.json, audio → delete → 410.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { decodeAudio } from './helpers/audio.js';
import { confirmSandbox, generate, paymentHeader, publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
});
afterAll(() => t.close());

const pathOf = (url: string) => new URL(url).pathname;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('sandbox flow from a clean start', () => {
  it('discovery → schema → 400 → 402 → confirm → 200 → page, service.json, audio → delete → 410', async () => {
    // 1. Discovery: everything needed, with absolute URLs under SITE_URL.
    const discovery = await t.app.inject({ url: '/.well-known/service-agent-services.json' });
    expect(discovery.statusCode).toBe(200);
    expect(discovery.headers['access-control-allow-origin']).toBe('*');
    expect(discovery.headers['cache-control']).toContain('max-age');
    const service = discovery.json().services.find((s: { id: string }) => s.id === 'entities.generate');
    expect(service).toMatchObject({
      method: 'POST',
      url: 'http://agents.localhost:3000/api/entities/generate',
      content_type: 'application/json',
      pricing: { amount: '1.00', currency: 'AUD' },
      payment: { processor: 'sandbox' },
    });
    expect(service.payment.steps.length).toBeGreaterThanOrEqual(3);
    expect(discovery.json().callbacks.signature.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });

    // 2. Schema: a JSON Schema 2020-12 document with an absolute $id that compiles.
    const schemaRes = await t.app.inject({ url: pathOf(service.request_schema_url) });
    expect(schemaRes.statusCode).toBe(200);
    const schema = schemaRes.json();
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBe(service.request_schema_url);
    expect(schema.additionalProperties).toBe(false);
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    const body = validBody({ name: 'Zoë Concierge', voice_style: 'female', intro: 'Hello, I am Zoë.' });
    expect(validate(body)).toBe(true);

    // 3. An invalid body: 400, nothing to pay.
    const bad = await generate(t, { ...body, entity_type: 'toaster' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ status: 'invalid_request', schema_url: service.request_schema_url });

    // 4. Valid and unpaid: 402 with the instruction.
    const unpaid = await generate(t, body);
    expect(unpaid.statusCode).toBe(402);
    expect(unpaid.headers['cache-control']).toBe('no-store');
    const instruction = unpaid.json().mpp_instruction;
    expect(instruction).toMatchObject({ amount: '1.00', currency: 'AUD', processor: 'sandbox' });
    expect(instruction.reference).toMatch(/^pi_[A-Za-z0-9]+$/);
    expect(instruction.address).toContain('_secret_');

    // 5. Pay with the client secret at the sandbox confirm URL.
    const confirmed = await t.app.inject({
      method: 'POST',
      url: pathOf(instruction.confirm_url),
      payload: { client_secret: instruction.address },
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json()).toMatchObject({ id: instruction.reference, status: 'succeeded', amount: 100, currency: 'aud' });

    // 6. Repeat with the payment header: 200 published.
    const paid = await generate(t, body, paymentHeader(instruction.reference));
    expect(paid.statusCode).toBe(200);
    expect(paid.headers['cache-control']).toBe('no-store');
    const result = paid.json();
    expect(Object.keys(result).sort()).toEqual(['entity', 'payment_status', 'receipt', 'status']);
    expect(result).toMatchObject({
      status: 'published',
      payment_status: 'paid',
      entity: {
        name: 'Zoë Concierge',
        entity_type: 'ai_agent',
        profile_url: 'http://agents.localhost:3000/e/zoe-concierge',
        machine_readable_url: 'http://agents.localhost:3000/e/zoe-concierge/.well-known/service.json',
        intro: 'Hello, I am Zoë.',
        visibility: 'public',
        created_via: 'agent_api',
      },
      receipt: { amount: '1.00', currency: 'AUD', method: 'card', transaction_id: instruction.reference },
    });
    expect(Object.keys(result.entity).sort()).toEqual(
      [
        'audio_url',
        'avatar_url',
        'created_via',
        'entity_type',
        'intro',
        'machine_readable_url',
        'name',
        'profile_url',
        'visibility',
      ].sort(),
    );
    expect(result.receipt.deletion_token).toMatch(UUID_V4);
    expect(result.entity.avatar_url).toMatch(/^http:\/\/agents\.localhost:3000\/assets\/robot-avatar\.[0-9a-f]+\.svg$/);

    // 7. The profile page.
    const page = await t.app.inject({ url: pathOf(result.entity.profile_url) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.body).toContain('<h1 id="entity-name">Zoë Concierge</h1>');
    expect(page.body).toContain('application/ld+json');
    expect(page.body).toContain('property="og:title" content="Zoë Concierge"');
    expect(page.body).toContain('Unclaimed · Unverified');
    expect(page.body).not.toContain('noindex');
    const avatar = await t.app.inject({ url: pathOf(result.entity.avatar_url) });
    expect(avatar.statusCode).toBe(200);
    expect(avatar.headers['content-type']).toBe('image/svg+xml');

    // 8. service.json.
    const machine = await t.app.inject({ url: pathOf(result.entity.machine_readable_url) });
    expect(machine.statusCode).toBe(200);
    expect(machine.json()).toMatchObject({
      name: 'Zoë Concierge',
      slug: 'zoe-concierge',
      entity_type: 'ai_agent',
      operator: 'Example Robotics',
      voice_style: 'female',
      created_via: 'agent_api',
      claim: { state: 'unclaimed', verification: 'unverified' },
      audio: { url: result.entity.audio_url, content_type: 'audio/mpeg' },
      links: { profile: result.entity.profile_url },
    });
    expect(machine.json().created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    // 9. The audio: a valid, non-silent MP3 whose length fits a two-word name.
    const audio = await t.app.inject({ url: pathOf(result.entity.audio_url) });
    expect(audio.statusCode).toBe(200);
    expect(audio.headers['content-type']).toBe('audio/mpeg');
    expect(audio.headers['accept-ranges']).toBe('bytes');
    const facts = decodeAudio(audio.rawPayload);
    expect(facts.codec).toBe('mp3');
    expect(facts.durationMs).toBeGreaterThan(500);
    expect(facts.durationMs).toBeLessThan(4000);
    expect(facts.maxDb).toBeGreaterThan(-20);
    expect(facts.meanDb).toBeGreaterThan(-45);
    const range = await t.app.inject({ url: pathOf(result.entity.audio_url), headers: { range: 'bytes=0-99' } });
    expect(range.statusCode).toBe(206);
    expect(range.headers['content-range']).toBe(`bytes 0-99/${audio.rawPayload.length}`);
    expect(range.rawPayload.equals(audio.rawPayload.subarray(0, 100))).toBe(true);
    const cached = await t.app.inject({
      url: pathOf(result.entity.audio_url),
      headers: { 'if-none-match': String(audio.headers.etag) },
    });
    expect(cached.statusCode).toBe(304);

    // 10. Delete with the receipt's token; everything answers 410 afterwards.
    const del = (token?: string) =>
      t.app.inject({
        method: 'DELETE',
        url: '/api/entities/zoe-concierge',
        headers: token === undefined ? {} : { 'deletion-token': token },
      });
    expect((await del()).statusCode).toBe(401);
    expect((await del('00000000-0000-4000-8000-000000000000')).statusCode).toBe(403);
    const deleted = await del(result.receipt.deletion_token);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toMatchObject({ status: 'deleted', slug: 'zoe-concierge' });
    expect((await t.app.inject({ url: pathOf(result.entity.profile_url) })).statusCode).toBe(410);
    expect((await t.app.inject({ url: pathOf(result.entity.machine_readable_url) })).statusCode).toBe(410);
    expect((await t.app.inject({ url: pathOf(result.entity.audio_url) })).statusCode).toBe(410);
    expect((await del(result.receipt.deletion_token)).statusCode).toBe(410);
    // The paid retry now reports the entity as gone, and the name stays reserved.
    expect((await generate(t, body, paymentHeader(instruction.reference))).statusCode).toBe(410);
    expect((await generate(t, body)).statusCode).toBe(400);
  });

  it('a longer name gives longer audio, and voice styles and language hints are honoured', async () => {
    const short = await publishEntity(t, validBody({ name: 'Ada' }));
    const long = await publishEntity(
      t,
      validBody({ name: 'Professor Bartholomew Quackenbush the Third of Kensington', voice_style: 'deep', language: 'en-GB' }),
    );
    const durations = await Promise.all(
      [short, long].map(
        async ({ paid }) =>
          decodeAudio((await t.app.inject({ url: pathOf(paid.json().entity.audio_url) })).rawPayload).durationMs / 1000,
      ),
    );
    expect(durations[0]).toBeGreaterThan(0.2);
    expect(durations[0]).toBeLessThan(2);
    expect(durations[1]).toBeGreaterThan((durations[0] as number) * 2);
    const machine = await t.app.inject({ url: pathOf(long.paid.json().entity.machine_readable_url) });
    expect(machine.json()).toMatchObject({ voice_style: 'deep', language: 'en-GB' });
  });

  it('unlisted profiles are marked noindex and carry no canonical link', async () => {
    const { paid } = await publishEntity(t, validBody({ visibility: 'unlisted' }));
    const page = await t.app.inject({ url: pathOf(paid.json().entity.profile_url) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(page.body).not.toContain('rel="canonical"');
    expect(page.headers['x-robots-tag']).toBe('noindex, nofollow');
    const llms = await t.app.inject({ url: '/llms.txt' });
    expect(llms.body).not.toContain(new URL(paid.json().entity.profile_url).pathname);
  });

  it('a supplied https avatar and source link are shown; unknown slugs are 404', async () => {
    const { paid } = await publishEntity(
      t,
      validBody({ avatar_url: 'https://cdn.example.com/bot.png', source_url: 'https://bot.example.com/' }),
    );
    expect(paid.json().entity.avatar_url).toBe('https://cdn.example.com/bot.png');
    const page = await t.app.inject({ url: pathOf(paid.json().entity.profile_url) });
    expect(page.body).toContain('src="https://cdn.example.com/bot.png"');
    expect(page.body).toContain('href="https://bot.example.com/"');
    expect((await t.app.inject({ url: '/e/no-such-entity' })).statusCode).toBe(404);
    // Unknown routes and methods under /api/entities answer in the entity API's shape too.
    for (const [method, url] of [
      ['DELETE', '/api/entities/generate/x'],
      ['PUT', '/api/entities/x'],
      ['GET', '/api/entities/a/b'],
    ] as const) {
      const res = await t.app.inject({ method, url });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 'not_found' });
      expect(res.json().error).toBeUndefined();
    }
    expect((await t.app.inject({ url: '/e/NOT%20A%20SLUG' })).statusCode).toBe(404);
  });

  it('the sandbox confirm endpoint refuses a wrong secret and a declining card', async () => {
    const unpaid = await generate(t, validBody());
    const instruction = unpaid.json().mpp_instruction;
    expect((await confirmSandbox(t, { ...instruction, address: `${instruction.reference}_secret_wrong` })).statusCode).toBe(404);
    const declined = await confirmSandbox(t, instruction, 'pm_card_chargeDeclined');
    expect(declined.statusCode).toBe(402);
    expect(declined.json().status).toBe('card_declined');
    expect((await confirmSandbox(t, instruction)).statusCode).toBe(200);
    expect((await confirmSandbox(t, instruction)).statusCode).toBe(409);
  });

  it('discovery, schema and llms.txt are cacheable with ETags; OpenAPI documents the paid endpoint', async () => {
    for (const url of ['/.well-known/service-agent-services.json', '/schemas/entity-generation.schema.json', '/llms.txt']) {
      const first = await t.app.inject({ url });
      expect(first.statusCode).toBe(200);
      expect(first.headers.etag).toBeTruthy();
      const again = await t.app.inject({ url, headers: { 'if-none-match': String(first.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
    const llms = await t.app.inject({ url: '/llms.txt' });
    expect(llms.body.startsWith('# voicename')).toBe(true);
    expect(llms.body).toContain('Payment-Authorization: mpp; reference=');
    const openapi = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const operation = openapi.paths['/api/entities/generate'].post;
    expect(operation['x-payment-info']).toEqual({
      offers: [
        {
          method: 'sandbox',
          intent: 'charge',
          amount: '100',
          currency: 'aud',
          description: '1.00 AUD per successful generation (voicename agent profile (1 generation))',
        },
      ],
    });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '402', '409']));
    expect(operation.security).toEqual([]);
    expect(openapi.paths['/api/entities/{slug}'].delete).toBeTruthy();
    expect(openapi.paths['/e/{slug}']).toBeUndefined();
    expect(await new Validator().validate(openapi)).toMatchObject({ valid: true });
  });
});
