/**
 * "How to say my name" on the record page: the person sees their guide, hears the computer voice
 * say what they type (phonemes from the respelling, never the name re-read as text), is told
 * plainly when letters are outside the key, saves it with a "not like this", approves the voice
 * (its MP3 appears on the API's User, coverage `computer_voice`) and withdraws it; the organiser
 * then needs `overwrite_person_edits`, and has no way to approve. The fake speech engine where
 * speech is not the subject; the real one for a non-Latin name in an Arabic page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { respellingToIpa } from '../src/pronunciation/respelling-key.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { decodeAudio } from './helpers/audio.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { runJobsLater } from './helpers/jobs.js';

const SAME_ORIGIN = { origin: 'http://localhost:3000' };

let t: TestApp;
let speech: FakeSpeech;
let key: string;
let collectionId: string;

beforeAll(async () => {
  speech = new FakeSpeech();
  t = await createTestApp({ overrides: { speech } });
  ({ key } = await t.newAccount('record-guide@example.com'));
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027' } })).json().id;
}, 60_000);
afterAll(() => t.close());

const usersUrl = () => `/v1/collections/${collectionId}/users`;
const apiUser = async (id: string) => (await t.request({ method: 'GET', url: `${usersUrl()}/${id}`, key })).json();

/** A person whose guide the background job has made, and their record page's path. */
async function personWithGuide(app: TestApp = t, apiKey = key, collection = collectionId, body: Record<string, unknown> = {}) {
  const res = await app.request({
    method: 'POST',
    url: `/v1/collections/${collection}/users`,
    key: apiKey,
    json: { email: `${Math.random()}@example.com`, first_name: 'Siobhan', last_name: 'Walsh', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  await runJobsLater(app.deps, 0);
  const user = res.json<{ id: string; record_url: string }>();
  return { id: user.id, path: new URL(user.record_url).pathname };
}

const form = (pagePath: string, action: string, fields: Record<string, string>, headers: Record<string, string> = SAME_ORIGIN) =>
  t.app.inject({
    method: 'POST',
    url: `${pagePath}/pronunciation${action}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
const hear = (app: TestApp, pagePath: string, body: unknown, headers: Record<string, string> = {}) =>
  app.app.inject({
    method: 'POST',
    url: `${pagePath}/pronunciation/hear`,
    headers: { 'content-type': 'application/json', ...SAME_ORIGIN, ...headers },
    payload: JSON.stringify(body),
  });
const page = (pagePath: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url: pagePath, headers });

describe("the name's language, chosen by the person", () => {
  it('stores it as theirs and makes the generated guide again in it; a written guide keeps its text', async () => {
    const { id, path: pagePath } = await personWithGuide(t, key, collectionId, { first_name: 'Joaquín', last_name: 'Reyes' });
    expect((await page(pagePath)).body).toContain('<select id="guide-name-language" name="name_language"');
    const chosen = await form(pagePath, '/language', { name_language: 'es' });
    expect(chosen.statusCode).toBe(303);
    const user = await apiUser(id);
    expect(user.name_language).toBe('es');
    expect(user.field_sources.name_language.source).toBe('person');
    expect(user.pronunciation).toMatchObject({ language: 'es', language_suggested: false, source: 'generated' });
    expect(speech.phonemizeRequests.at(-1)?.language).toBe('es');
    expect((await page(pagePath)).body).toContain('<option value="es" selected>');

    expect((await form(pagePath, '', { respelling: 'khoh-ah-KEEN', not_like: '' })).statusCode).toBe(303);
    expect((await form(pagePath, '/language', { name_language: 'pt' })).statusCode).toBe(303);
    expect((await apiUser(id)).pronunciation).toMatchObject({ language: 'pt', respelling: 'khoh-ah-KEEN', source: 'person' });
    // Only the languages offered; from the page itself.
    expect((await form(pagePath, '/language', { name_language: 'xx-bogus' })).statusCode).toBe(400);
    expect((await form(pagePath, '/language', { name_language: 'fr' }, { origin: 'https://elsewhere.example' })).statusCode).toBe(
      403,
    );
  });
});

describe('the guide on the record page', () => {
  it('shows the guide: respelling, IPA, language, the key, and the choice to approve', async () => {
    const { id, path: pagePath } = await personWithGuide();
    const { pronunciation } = await apiUser(id);
    const res = await page(pagePath);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<h2 id="guide-title">How to say my name</h2>');
    expect(res.body).toContain(`<p class="guide-respelling" id="guide-respelling" lang="en">${pronunciation.respelling}</p>`);
    expect(res.body).toContain(`/${pronunciation.ipa}/`);
    expect(res.body).toContain('Language: English');
    expect(res.body).not.toContain('suggested from the script');
    expect(res.body).toContain(`value="${pronunciation.respelling}"`);
    expect(res.body).toContain('This computer voice says my name right');
    expect(res.body).not.toContain('id="guide-withdraw"');
    // The key: every row's letters, a word with the sound, the IPA.
    expect(res.body).toContain('<summary>How to write the sounds</summary>');
    expect(res.body).toMatch(/<tr><td><strong>sh<\/strong><\/td><td lang="en">ship<\/td><td>ʃ<\/td><\/tr>/);
    expect(res.body).toContain('<h2 id="record-title">Record my own voice</h2>');
    expect(res.body).toMatch(/<script src="\/assets\/recorder-guide\.[0-9a-f]+\.js" defer>/);
  });

  it('speaks what is typed as phonemes, alone or after the page’s words in the page’s language', async () => {
    const { path: pagePath } = await personWithGuide();
    const alone = await hear(t, pagePath, { respelling: 'shiv-AWN' });
    expect(alone.statusCode, alone.body).toBe(200);
    expect(alone.headers['content-type']).toBe('audio/mpeg');
    expect(alone.rawPayload.length).toBeGreaterThan(0);
    expect(speech.requests.at(-1)).toEqual({ phonemes: respellingToIpa('shiv-AWN', 'en'), language: 'en' });

    const inSentence = await hear(t, pagePath, { respelling: 'shiv-AWN', sentence: true }, { 'accept-language': 'fr' });
    expect(inSentence.statusCode).toBe(200);
    // The name by its own voice as phonemes, the page's French words by the French voice.
    expect(speech.requests.slice(-2)).toEqual([
      { phonemes: respellingToIpa('shiv-AWN', 'en'), language: 'en' },
      { text: 'Veuillez accueillir', language: 'fr' },
    ]);
    expect(inSentence.rawPayload.length).toBe(alone.rawPayload.length * 2);
  });

  it('refuses letters outside the key with pronunciation_invalid, and shows the page again with a translated error', async () => {
    const { id, path: pagePath } = await personWithGuide();
    const before = (await apiUser(id)).pronunciation;
    const bad = await hear(t, pagePath, { respelling: 'shiv-AWNq' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'pronunciation_invalid', param: 'respelling' });
    const tooLong = await hear(t, pagePath, { respelling: 'a'.repeat(121) });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().error.param).toBe('respelling');

    const saved = await form(
      pagePath,
      '',
      { respelling: 'shiv-AWNq', not_like: 'SHY-oh-ban' },
      { ...SAME_ORIGIN, 'accept-language': 'es' },
    );
    expect(saved.statusCode).toBe(400);
    expect(saved.headers['content-type']).toContain('text/html');
    expect(saved.body).toContain(
      '<p class="error" id="guide-error" role="alert">Algunas de esas letras no están en la clave. Usa las letras de «Cómo escribir los sonidos», más abajo.</p>',
    );
    expect(saved.body).toContain('value="shiv-AWNq"');
    expect(saved.body).toContain('value="SHY-oh-ban"');
    expect((await apiUser(id)).pronunciation).toEqual(before);
  });

  it('accepts posts only from the page itself', async () => {
    const { path: pagePath } = await personWithGuide();
    const elsewhere = { origin: 'https://evil.example' };
    expect((await form(pagePath, '', { respelling: 'shiv-AWN' }, elsewhere)).statusCode).toBe(403);
    expect((await form(pagePath, '/approve', { respelling: 'shiv-AWN' }, elsewhere)).statusCode).toBe(403);
    expect((await form(pagePath, '/withdraw', {}, elsewhere)).statusCode).toBe(403);
    expect((await hear(t, pagePath, { respelling: 'shiv-AWN' }, { origin: 'https://evil.example' })).statusCode).toBe(403);
    expect((await form('/r/not-a-real-token-at-all-000', '', { respelling: 'shiv-AWN' })).statusCode).toBe(404);
  });

  it('saves an edit with its "not like this": a new IPA from the respelling, written by the person', async () => {
    const { id, path: pagePath } = await personWithGuide();
    const res = await form(pagePath, '', { respelling: 'shiv-AWN WAHLSH', not_like: 'SHY-oh-ban' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${pagePath}?guide_saved=1`);
    const { pronunciation } = await apiUser(id);
    expect(pronunciation).toMatchObject({
      respelling: 'shiv-AWN WAHLSH',
      ipa: respellingToIpa('shiv-AWN WAHLSH', 'en'),
      not_like: 'SHY-oh-ban',
      source: 'person',
      coverage: 'guide',
      approved_at: null,
    });
    const shown = await page(res.headers.location as string);
    expect(shown.body).toContain('Your pronunciation guide is saved.');
    expect(shown.body).toContain('Not like “SHY-oh-ban”');
  });

  it('approves what is in the field, withdraws, and leaves the organiser needing overwrite_person_edits', async () => {
    const { id, path: pagePath } = await personWithGuide();
    const approved = await form(pagePath, '/approve', { respelling: 'shiv-AWN', not_like: '' });
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe(`${pagePath}?guide_approved=1`);
    const after = (await apiUser(id)).pronunciation;
    expect(after).toMatchObject({ coverage: 'computer_voice', respelling: 'shiv-AWN', source: 'person' });
    expect(after.approved_at).toEqual(expect.any(String));
    expect(after.audio_url).toMatch(/^http:\/\/localhost:3000\/pronunciations\/[\w-]+\.mp3$/);
    const audioPath = new URL(after.audio_url).pathname;
    const voice = await t.app.inject({ method: 'GET', url: audioPath });
    expect(voice.statusCode).toBe(200);
    expect(voice.headers['content-type']).toContain('audio/mpeg');

    const shown = await page(approved.headers.location as string);
    expect(shown.body).toContain('Approved: this computer voice will say your name.');
    expect(shown.body).toContain('id="guide-approved"');
    expect(shown.body).toContain(`src="${after.audio_url}"`);
    expect(shown.body).toContain('Withdraw approval');
    expect(shown.body).not.toContain('id="guide-approve"');

    const withdrawn = await form(pagePath, '/withdraw', {});
    expect(withdrawn.statusCode).toBe(303);
    expect(withdrawn.headers.location).toBe(`${pagePath}?guide_withdrawn=1`);
    expect((await apiUser(id)).pronunciation).toMatchObject({
      coverage: 'guide',
      approved_at: null,
      audio_url: null,
      respelling: 'shiv-AWN',
      source: 'person',
    });
    expect((await t.app.inject({ method: 'GET', url: audioPath })).statusCode).toBe(404);
    expect((await page(withdrawn.headers.location as string)).body).toContain('Your approval is withdrawn.');

    // The guide is the person's now: the organiser's change needs their say-so.
    const organiser = await t.request({
      method: 'PATCH',
      url: `${usersUrl()}/${id}`,
      key,
      json: { pronunciation: { respelling: 'SHOH-bahn' } },
    });
    expect(organiser.statusCode).toBe(409);
    expect(organiser.json().error).toMatchObject({ code: 'person_edited', param: 'pronunciation' });
  });

  it('gives organisers no way to approve: PATCH refuses approval fields, and no other route calls approveGuide', async () => {
    const { id } = await personWithGuide();
    for (const pronunciation of [
      { approved_at: '2027-01-01T00:00:00Z' },
      { approved: true },
      { respelling: 'shiv-AWN', approve: true },
    ]) {
      const res = await t.request({ method: 'PATCH', url: `${usersUrl()}/${id}`, key, json: { pronunciation } });
      expect(res.statusCode, JSON.stringify(pronunciation)).toBe(400);
    }
    const accepted = await t.request({
      method: 'PATCH',
      url: `${usersUrl()}/${id}`,
      key,
      json: { pronunciation: { respelling: 'shiv-AWN' } },
    });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().pronunciation).toMatchObject({ coverage: 'guide', approved_at: null, source: 'organiser' });

    const callers = sourceFiles(path.resolve('src')).filter((file) => /\bapproveGuide\(/.test(fs.readFileSync(file, 'utf8')));
    expect(callers.map((file) => path.relative(path.resolve('src'), file)).sort()).toEqual([
      'features/pronunciation/service.ts',
      'features/recordings/recorder-guide-routes.ts',
    ]);
  });
});

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the guide with the real speech engine', () => {
  let real: TestApp;
  let realKey: string;
  let realCollection: string;
  beforeAll(async () => {
    real = await createTestApp();
    ({ key: realKey } = await real.newAccount('record-guide-real@example.com'));
    realCollection = (
      await real.request({ method: 'POST', url: '/v1/collections', key: realKey, json: { name: 'Real', language: 'ar' } })
    ).json().id;
  }, 60_000);
  afterAll(() => real?.close());

  it('suggests the language of a non-Latin name, and speaks the edit alone and in an Arabic sentence', async () => {
    const { path: pagePath } = await personWithGuide(real, realKey, realCollection, { first_name: '민준', last_name: '김' });
    const shown = await real.app.inject({ method: 'GET', url: pagePath });
    expect(shown.body).toContain('<html lang="ar" dir="rtl">');
    expect(shown.body).toMatch(/اللغة: الكورية/);
    expect(shown.body).toContain('(مقترحة من الخط الذي كُتب به اسمك)');
    const respelling = /id="guide-input"[^>]*value="([^"]+)"/.exec(shown.body)?.[1] as string;
    expect(respelling).toBeTruthy();

    const alone = await hear(real, pagePath, { respelling });
    expect(alone.statusCode, alone.body).toBe(200);
    expect(alone.headers['content-type']).toBe('audio/mpeg');
    const inSentence = await hear(real, pagePath, { respelling, sentence: true });
    expect(inSentence.statusCode, inSentence.body).toBe(200);
    // One playable stream: the Arabic words, then the name in the Korean voice.
    const name = decodeAudio(alone.rawPayload);
    const sentence = decodeAudio(inSentence.rawPayload);
    expect(name.meanDb).toBeGreaterThan(-40);
    expect(sentence.durationMs).toBeGreaterThan(name.durationMs + 400);
  }, 60_000);
});
