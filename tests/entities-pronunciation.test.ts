/**
 * Agent profiles carry a pronunciation guide of their name: made when the profile is published,
 * in the request's `name_language` (an addition to the spec's fields), else in the language the
 * name's script suggests, else English; shown on `/e/<slug>` (the respelling, and the IPA small)
 * and in `service.json`. The real speech engine: the guide's sounds are the subject.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { generate, publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' } });
}, 60_000);
afterAll(() => t.close());

const pathOf = (url: string) => new URL(url).pathname;

async function published(body: Record<string, unknown>) {
  const { paid } = await publishEntity(t, body);
  expect(paid.statusCode, paid.body).toBe(200);
  const entity = paid.json().entity;
  const machine = await t.app.inject({ url: pathOf(entity.machine_readable_url) });
  const page = await t.app.inject({ url: pathOf(entity.profile_url) });
  return { entity, machine: machine.json(), page: page.body };
}

describe('the pronunciation guide of an agent profile', () => {
  it('reads the name in name_language: Joaquín in Spanish, on the page and in service.json', async () => {
    const { entity, machine, page } = await published(validBody({ name: 'Joaquín', name_language: 'es' }));
    expect(machine.pronunciation).toMatchObject({ language: 'es', language_suggested: false });
    // The Spanish j is the velar fricative, and the stress is on the last syllable.
    expect(machine.pronunciation.ipa).toMatch(/^x.*kˈin$/u);
    expect(machine.pronunciation.respelling).toMatch(/^kh.*KEEN$/u);
    // The paid answer keeps the spec's exact shape; the audio is still the name as the agent paid for it.
    expect(Object.keys(entity)).not.toContain('pronunciation');
    expect(page).toContain(
      `<span class="respelling" id="entity-respelling" lang="en">${machine.pronunciation.respelling}</span>`,
    );
    expect(page).toContain(`<span class="ipa" id="entity-ipa" lang="und-fonipa"`);
    expect(page).toContain(`/${machine.pronunciation.ipa}/</span>`);
  });

  it('suggests Chinese for a Han name, and reads a Latin name as English without suggesting anything', async () => {
    const han = await published(validBody({ name: '小爱同学' }));
    expect(han.machine.pronunciation).toMatchObject({ language: 'zh', language_suggested: true });
    expect(han.machine.pronunciation.ipa).not.toBe('');
    expect(han.page).toContain('id="entity-respelling"');

    const latin = await published(validBody({ name: 'Orbit Concierge' }));
    expect(latin.machine.pronunciation).toMatchObject({ language: 'en', language_suggested: false });
    expect(latin.machine.pronunciation.respelling).toMatch(/^AWR-/u);
  });

  it('publishes a name with nothing to say (digits only) without a guide', async () => {
    const { machine, page } = await published(validBody({ name: `2049 ${Date.now()}` }));
    expect(machine.pronunciation).toBeNull();
    expect(page).not.toContain('id="entity-pronunciation"');
  });

  it.each([['español'], ['en-xx-yy'], [''], [42]])(
    'refuses name_language %j with the spec 400, before any payment',
    async (value) => {
      const res = await generate(t, validBody({ name_language: value }));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({
        status: 'invalid_request',
        missing: [],
        invalid: [{ field: 'name_language', received: value, allowed: ['a BCP 47 language tag such as es, ga or zh-Hans'] }],
      });
      expect(res.json().message).toContain('name_language must be a BCP 47 language tag');
    },
  );

  it('documents name_language in the served JSON Schema as optional, the required fields unchanged', async () => {
    const schema = (await t.app.inject({ url: '/schemas/entity-generation.schema.json' })).json();
    expect(schema.required).toEqual(['name', 'entity_type', 'description', 'operator', 'visibility']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.name_language).toMatchObject({ type: 'string', maxLength: 35 });
    expect(schema.properties.name_language.description).toContain('well-formed');
    expect(schema.properties.name_language.description).toContain('addition');
  });
});
