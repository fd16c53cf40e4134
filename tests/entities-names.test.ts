/**
 * Agent names in every script: published end to end (paid on the sandbox), with slugs that keep
 * their letters and profile, service.json and audio URLs that are valid absolute URLs
 * (percent-encoded) and resolve; a name mixing scripts into a look-alike is refused before any
 * 402; a name is read in a voice of its script, not spelled out as English.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { speechLanguageFor } from '../src/lib/scripts.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { generate, publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
});
afterAll(() => t.close());

/** Digits keep names unique without adding Latin letters to them. */
const suffix = () => String(Math.floor(Math.random() * 1e6));

describe('names in every script', () => {
  for (const [script, name] of [
    ['Cyrillic', 'Алиса Помощник'],
    ['Chinese', '小爱同学'],
    ['Japanese', 'ソフィア秘書'],
    ['Arabic', 'مساعد ذكي'],
    ['Devanagari', 'सहायक'],
  ] as const) {
    it(`publishes a ${script} name at a percent-encoded URL that resolves`, async () => {
      const unique = `${name} ${suffix()}`;
      const { paid } = await publishEntity(t, validBody({ name: unique }));
      expect(paid.statusCode, paid.body).toBe(200);
      const body = paid.json<{ entity: { profile_url: string; machine_readable_url: string; audio_url: string } }>().entity;
      for (const url of [body.profile_url, body.machine_readable_url, body.audio_url]) {
        expect(url).toMatch(/^http:\/\/agents\.localhost:3000\/e\/[A-Za-z0-9%_.~-]+(\/|$)/);
        expect(new URL(url).href).toBe(url);
      }
      const profile = await t.request({ method: 'GET', url: new URL(body.profile_url).pathname });
      expect(profile.statusCode).toBe(200);
      expect(profile.body).toContain(unique);
      const meta = await t.request({ method: 'GET', url: new URL(body.machine_readable_url).pathname });
      expect(meta.json()).toMatchObject({ name: unique });
      const audio = await t.request({ method: 'GET', url: new URL(body.audio_url).pathname });
      expect(audio.statusCode).toBe(200);
      expect(audio.headers['content-type']).toBe('audio/mpeg');
    });
  }

  it('refuses a name that mixes scripts into a look-alike, before any 402', async () => {
    const res = await generate(t, validBody({ name: `\u041erbit ${suffix()}` }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe(
      'The request is invalid: name mixes Cyrillic and Latin letters, which makes look-alikes of other names; write it in one script.',
    );
    expect(res.json().invalid).toEqual([expect.objectContaining({ field: 'name' })]);
    expect((await generate(t, validBody({ name: `GPT 助手 ${suffix()}` }))).statusCode).toBe(402);
  });

  it('takes a name that looks the same as a published one (UTS #39 skeleton): Оrbit, 0rbit, and a whole-Cyrillic look-alike', async () => {
    const n = suffix();
    const { paid } = await publishEntity(t, validBody({ name: `Orbit ${n}` }));
    expect(paid.statusCode).toBe(200);
    const looksTaken = `looks the same as a published one (profile /e/orbit-${n})`;
    for (const name of [`\u041erbit ${n}`, `0rbit ${n}`, `ORBIT ${n}`]) {
      const res = await generate(t, validBody({ name }));
      expect(res.statusCode, name).toBe(400);
      expect(res.json().message, name).toContain(name === `ORBIT ${n}` ? `is already taken (profile /e/orbit-${n})` : looksTaken);
    }
    // Every letter Cyrillic ("арех"), imitating a published Latin "apex".
    const m = suffix();
    expect((await publishEntity(t, validBody({ name: `apex ${m}` }))).paid.statusCode).toBe(200);
    const cyrillic = await generate(t, validBody({ name: `\u0430\u0440\u0435\u0445 ${m}` }));
    expect(cyrillic.statusCode).toBe(400);
    expect(cyrillic.json().message).toContain(`looks the same as a published one (profile /e/apex-${m})`);
    // A Cyrillic name that is read, not mistaken for a Latin one, is free.
    expect((await generate(t, validBody({ name: `\u043e\u0440\u0431\u0438\u0442 ${m}` }))).statusCode).toBe(402);
  });

  it('says exactly what is wrong with a name that has no letter or digit', async () => {
    const res = await generate(t, validBody({ name: '!!! ...' }));
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('The request is invalid: name must contain at least one letter or digit.');
  });

  it('reads a name in a voice of its script instead of spelling it out in English', async () => {
    const name = 'Алиса';
    const own = await t.deps.speech.synthesize({ text: name, language: speechLanguageFor(name) });
    const english = await t.deps.speech.synthesize({ text: name, language: 'en-us' });
    expect(own.voice).toBe('ru');
    // English eSpeak names each Cyrillic letter ("cyrillic letter a…"): several times longer.
    expect(english.durationMs).toBeGreaterThan(own.durationMs * 2);
  });
});
