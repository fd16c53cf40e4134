/**
 * The record page as the person invited sees it: who asks and by when, who will hear the
 * recording, the collection's language (or the browser's), a returning person's play link and
 * signature badge, and correcting their own details (only where the collection allows, only
 * from the page itself, by the API's rules).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

async function personIn(settings: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Convocation 2027', ...settings },
  });
  expect(collection.statusCode, collection.body).toBe(201);
  const id = collection.json<{ id: string }>().id;
  const user = await t.request({
    method: 'POST',
    url: `/v1/collections/${id}/users`,
    key,
    json: { email: `${Math.random()}@example.com`, first_name: 'Siobhán', last_name: 'Ní Bhriain', ...extra },
  });
  const body = user.json<{ id: string; record_url: string }>();
  return { collectionId: id, userId: body.id, path: new URL(body.record_url).pathname };
}

const page = (path: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url: path, headers });
const saveDetails = (
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { origin: 'http://localhost:3000' },
) =>
  t.app.inject({
    method: 'POST',
    url: `${path}/details`,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  });

describe('the record page', () => {
  it('says who asks, by when, and who will hear the recording', async () => {
    const { path } = await personIn({
      deadline: '2027-03-15',
      branding: {
        organisation_name: 'Riverside <University>',
        intro: 'Help us say your name right.',
        privacy_note: 'Only the ceremony team hears it.',
      },
    });
    const res = await page(path);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<html lang="en" dir="ltr">');
    expect(res.body).toContain('<strong><bdi>Riverside &lt;University&gt;</bdi></strong> · For <bdi>Convocation 2027</bdi>');
    expect(res.body).toContain('Help us say your name right.');
    expect(res.body).toContain('Please record by March 15, 2027.');
    expect(res.body).toContain('<p id="privacy-note" dir="auto">Only the ceremony team hears it.</p>');

    const plain = await page((await personIn({})).path);
    expect(plain.body).toContain('<p id="privacy-note">Anyone with your play link can hear your recording.</p>');
    expect(plain.body).not.toContain('id="deadline"');
  });

  it("is in the collection's language unless the browser asks for another it has; Arabic is right-to-left", async () => {
    const { path } = await personIn({ language: 'es', deadline: '2027-03-15' });
    const spanish = await page(path);
    expect(spanish.body).toContain('<html lang="es" dir="ltr">');
    expect(spanish.body).toContain('Graba antes del 15 de marzo de 2027, por favor.');
    expect(spanish.body).toContain('>Empezar a grabar</button>');
    // The script's own messages come in the same language.
    expect(spanish.body).toMatch(/<script type="application\/json" id="recorder-messages">\{[^<]*"get_ready":"Prepárate…"/);

    const arabic = await page(path, { 'accept-language': 'ar-EG,ar;q=0.9' });
    expect(arabic.body).toContain('<html lang="ar" dir="rtl">');
    const unknown = await page(path, { 'accept-language': 'tlh' });
    expect(unknown.body).toContain('<html lang="es" dir="ltr">');
  });

  it("isolates the organiser's and the person's own text on an Arabic page, so English keeps its order", async () => {
    const { path } = await personIn({
      name: 'Class of 2027',
      language: 'ar',
      deadline: '2027-12-12',
      branding: {
        organisation_name: 'Riverside University',
        intro: 'The ceremony is on 12 December.',
        privacy_note: 'Only the ceremony team hears it.',
      },
    });
    const res = await page(path);
    expect(res.body).toContain('<html lang="ar" dir="rtl">');
    expect(res.body).toContain('<strong><bdi>Riverside University</bdi></strong>');
    expect(res.body).toMatch(/<p class="organisation">.*<bdi>Class of 2027<\/bdi><\/p>/);
    expect(res.body).toContain('<p class="intro" dir="auto">The ceremony is on 12 December.</p>');
    expect(res.body).toContain('<p id="privacy-note" dir="auto">Only the ceremony team hears it.</p>');
    expect(res.body).toContain('<h1 class="name" dir="auto">Siobhán Ní Bhriain</h1>');
    // The title is plain text: Unicode isolates do what <bdi> does in the page.
    expect(res.body).toMatch(/<title>[^<]*\u2068Siobhán Ní Bhriain\u2069[^<]*<\/title>/);
    expect(res.body).toMatch(/<input id="phonetic"[^>]* dir="auto"/);
  });

  it('says the deadline has passed once its day is over, in every language, and still lets them record', async () => {
    const { path } = await personIn({ deadline: '2020-01-15' });
    const expected: Record<string, string> = {
      en: 'The deadline (January 15, 2020) has passed, but you can still record.',
      de: 'Die Frist (15. Januar 2020) ist abgelaufen, Sie können aber noch aufnehmen.',
      es: 'El plazo (15 de enero de 2020) ya ha pasado, pero todavía puedes grabar.',
      fr: 'La date limite (15 janvier 2020) est passée, mais vous pouvez encore enregistrer.',
      ar: 'انتهى الموعد النهائي (',
      'zh-Hans': '截止日期（2020年1月15日）已过，但你仍然可以录制。',
    };
    for (const [locale, sentence] of Object.entries(expected)) {
      const res = await page(path, { 'accept-language': locale });
      expect(res.body).toContain(`<html lang="${locale}"`);
      expect(res.body).toContain(sentence);
      expect(res.body).not.toContain('Please record by');
      expect(res.body).toContain('<button type="button" id="start" class="primary">');
    }
  });

  it('labels the input-level meter as a meter in every language', async () => {
    const { path } = await personIn({});
    const labels: Record<string, string> = {
      en: 'Microphone level',
      de: 'Mikrofonpegel',
      es: 'Nivel del micrófono',
      fr: 'Niveau du micro',
      ar: 'مستوى الميكروفون',
      'zh-Hans': '麦克风音量',
    };
    for (const [locale, label] of Object.entries(labels)) {
      const res = await page(path, { 'accept-language': locale });
      expect(res.body, locale).toContain(
        `<div class="meter" id="meter" role="meter" aria-label="${label}" aria-valuemin="0" aria-valuemax="100" aria-valuenow="0" hidden>`,
      );
    }
  });

  it('has one phonetic spelling field, sent with the recording and with the details form', async () => {
    const { path, collectionId, userId } = await personIn({}, { phonetic_spelling: 'shi-VAWN' });
    const body = (await page(path)).body;
    expect(body.match(/name="phonetic_spelling"/g)).toHaveLength(1);
    expect(body).toMatch(/<input id="phonetic" name="phonetic_spelling"[^>]* value="shi-VAWN"[^>]* form="details-form"/);
    expect(body).toContain('id="details-form"');
    const saved = await saveDetails(path, { display_name: 'Siobhán Ní Bhriain', phonetic_spelling: 'shi-VON' });
    expect(saved.statusCode).toBeLessThan(400);
    const user = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key });
    expect(user.json()).toMatchObject({ phonetic_spelling: 'shi-VON' });

    const locked = await page((await personIn({ self_edit: false })).path);
    expect(locked.body.match(/name="phonetic_spelling"/g)).toHaveLength(1);
    expect(locked.body).not.toContain('form="details-form"');
  });

  it('gives a returning person their play link and signature badge HTML', async () => {
    const { path, collectionId, userId } = await personIn({});
    const res = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collectionId}/users/${userId}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(res.statusCode, res.body).toBe(200);
    const playLink = res.json<{ play_link: string }>().play_link;
    const body = (await page(path)).body;
    expect(body).toContain(`<input id="own-play-link" readonly value="${playLink}">`);
    expect(body).toContain(
      `&lt;a href=&quot;${playLink}&quot;&gt;&lt;img src=&quot;${playLink}/badge.png?scale=2&quot; width=&quot;180&quot; height=&quot;40&quot;`,
    );
  });
});

describe('correcting their own details', () => {
  it('saves display name, preferred name, pronouns and phonetic spelling from the page', async () => {
    const { path, collectionId, userId } = await personIn({});
    expect((await page(path)).body).toContain('id="details"');
    const res = await saveDetails(path, {
      display_name: 'Siobhán Ní Bhriain-Walsh',
      preferred_name: 'Shiv',
      pronouns: 'she/her',
      phonetic_spelling: 'shi-VAWN nee VREE-in',
    });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`${path}?saved=1`);
    const user = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key })).json();
    expect(user).toMatchObject({
      display_name: 'Siobhán Ní Bhriain-Walsh',
      preferred_name: 'Shiv',
      pronouns: 'she/her',
      phonetic_spelling: 'shi-VAWN nee VREE-in',
    });
    expect((await page(`${path}?saved=1`)).body).toContain('Your details are saved.');

    // Emptying an optional field removes it.
    await saveDetails(path, { display_name: 'Siobhán', preferred_name: '', pronouns: '', phonetic_spelling: '' });
    const cleared = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key })).json();
    expect(cleared).toMatchObject({ display_name: 'Siobhán', preferred_name: null, pronouns: null, phonetic_spelling: null });
  });

  it('refuses what the API refuses, saying which field, and changes nothing', async () => {
    const { path, collectionId, userId } = await personIn({});
    for (const [fields, field] of [
      [{ display_name: '' }, 'Your name as shown'],
      [{ display_name: 'Siobhán', pronouns: 'x'.repeat(41) }, 'Pronouns'],
      [{ display_name: 'Siobhán', phonetic_spelling: 'a\u0007b' }, 'Phonetic spelling'],
    ] as const) {
      const res = await saveDetails(path, fields);
      expect(res.statusCode, JSON.stringify(fields)).toBe(400);
      expect(res.body).toContain(`That could not be saved: check “${field}”.`);
      expect(res.body).toContain('aria-invalid="true"');
    }
    const user = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}`, key })).json();
    expect(user).toMatchObject({ display_name: 'Siobhán Ní Bhriain', pronouns: null, phonetic_spelling: null });
  });

  it('is not offered, and refused, where the collection turned self-editing off; and never from another site', async () => {
    const { path } = await personIn({ self_edit: false });
    expect((await page(path)).body).not.toContain('id="details"');
    expect((await saveDetails(path, { display_name: 'Someone else' })).statusCode).toBe(403);

    const open = await personIn({});
    const foreign: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }, {}];
    for (const headers of foreign) {
      expect((await saveDetails(open.path, { display_name: 'Mallory' }, headers)).statusCode, JSON.stringify(headers)).toBe(403);
    }
  });
});
