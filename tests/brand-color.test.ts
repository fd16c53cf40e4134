/**
 * A collection's brand colour through `/v1` and the dashboard's settings form: `#rrggbb` only,
 * white text on it must reach WCAG AA (4.5:1), a refusal gives the ratio and a darker shade that
 * passes; the record page and the player page load it as a style sheet of our own (their CSP
 * allows no inline style).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
const ORGANISER = 'brand-organiser@example.com';

beforeAll(async () => {
  t = await createTestApp();
  organiser = await signIn(t, ORGANISER, '203.0.113.51');
  ({ key } = await t.newAccount(ORGANISER));
});
afterAll(() => t.close());

const create = async (branding: Record<string, unknown> = {}) => {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Graduation 2027', branding } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string; branding: { brand_color: string | null } }>();
};
const patchColor = (id: string, brand_color: string | null) =>
  t.request({ method: 'PATCH', url: `/v1/collections/${id}`, key, json: { branding: { brand_color } } });
const errorOf = (res: { json<T>(): T }) => res.json<{ error: { code: string; param?: string; message: string } }>().error;

/** The settings form as the page sends it, with the brand colour fields given. */
const settingsForm = (color: { text: string; shown: string; picker: string }) => ({
  csrf: organiser.csrf,
  language: 'en',
  self_edit: '1',
  reminders: '',
  brand_color: color.text,
  brand_color_shown: color.shown,
  brand_color_picker: color.picker,
});

describe('brand colour through /v1', () => {
  it('has none by default, and stores #rrggbb in lower case', async () => {
    const { id, branding } = await create();
    expect(branding.brand_color).toBeNull();
    const res = await patchColor(id, '#1A4D8F');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ branding: { brand_color: string } }>().branding.brand_color).toBe('#1a4d8f');
    expect((await patchColor(id, null)).json<{ branding: { brand_color: null } }>().branding.brand_color).toBeNull();
  });

  it('accepts #767676 (white text at 4.54:1) and refuses #777777 (4.48:1) with the ratio and a darker shade', async () => {
    const { id } = await create();
    expect((await patchColor(id, '#767676')).statusCode).toBe(200);
    const refused = await patchColor(id, '#777777');
    expect(refused.statusCode).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'parameter_invalid', param: 'branding.brand_color' });
    expect(errorOf(refused).message).toBe(
      'White text on #777777 has a contrast of 4.48:1; buttons need at least 4.5:1 (WCAG AA). A darker shade that reaches it: #767676.',
    );
    // The colour before the refusal is kept.
    const read = await t.request({ method: 'GET', url: `/v1/collections/${id}`, key });
    expect(read.json<{ branding: { brand_color: string } }>().branding.brand_color).toBe('#767676');
  });

  it('refuses anything but #rrggbb with a 400 envelope', async () => {
    const { id } = await create();
    for (const bad of ['#abc', '1a4d8f', 'navy', '#1a4d8f00', '#gg0000']) {
      const res = await patchColor(id, bad);
      expect(res.statusCode, bad).toBe(400);
      expect(errorOf(res).code, bad).toBe('parameter_invalid');
    }
    // Creating a collection checks it as changing one does.
    const created = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      json: { name: 'Too light', branding: { brand_color: '#ffff00' } },
    });
    expect(created.statusCode).toBe(400);
    expect(errorOf(created).message).toContain('White text on #ffff00 has a contrast of 1.07:1');
  });
});

describe('brand colour in the dashboard settings form', () => {
  it('offers a colour picker and the same colour as text', async () => {
    const { id } = await create({ brand_color: '#1a4d8f' });
    const page = (await get(t, organiser, `/dashboard/collections/${id}/settings`)).body;
    expect(page).toMatch(/<input type="color" id="brand-color-picker" name="brand_color_picker" value="#1a4d8f"/);
    expect(page).toMatch(/<input type="text" id="brand-color-text" name="brand_color" value="#1a4d8f"/);
    expect(page).toContain('<label for="brand-color-picker">');
    expect(page).toContain('<label for="brand-color-text">');
  });

  it('saves the typed text, or the picker when only the picker was moved, and removes the colour when the text is emptied', async () => {
    const { id } = await create();
    const read = async () =>
      (await t.request({ method: 'GET', url: `/v1/collections/${id}`, key })).json<{ branding: { brand_color: string | null } }>()
        .branding.brand_color;
    const typed = await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: '#1A4D8F', shown: '', picker: '#2456d3' }),
    );
    expect(typed.statusCode, typed.body).toBe(303);
    expect(await read()).toBe('#1a4d8f');
    await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: '#1a4d8f', shown: '#1a4d8f', picker: '#5b2a86' }),
    );
    expect(await read()).toBe('#5b2a86');
    await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: '#5b2a86', shown: '#5b2a86', picker: '#5b2a86' }),
    );
    expect(await read()).toBe('#5b2a86');
    await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: '', shown: '#5b2a86', picker: '#5b2a86' }),
    );
    expect(await read()).toBeNull();
  });

  it('refuses a colour white text cannot be read on, next to the field, with the ratio and a darker shade', async () => {
    const { id } = await create();
    const res = await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: '#777777', shown: '', picker: '#2456d3' }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('White text on #777777 has a contrast of 4.48:1');
    expect(res.body).toContain('A darker shade that reaches it: #767676.');
    expect(res.body).toMatch(/id="brand-color-text" name="brand_color" value="#777777"[^>]*aria-invalid="true"/);
    const malformed = await post(
      t,
      organiser,
      `/dashboard/collections/${id}/settings`,
      settingsForm({ text: 'navy', shown: '', picker: '#2456d3' }),
    );
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toContain('A brand colour is written #rrggbb, e.g. #2456d3.');
  });
});

describe('brand colour on the pages people see', () => {
  it('reaches the record page and the player page as our own style sheet, which sets the accent', async () => {
    const { id } = await create({ brand_color: '#1a4d8f' });
    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'brand-person@example.com', first_name: 'Ada', last_name: 'Obi' },
    });
    const { id: userId, record_url } = user.json<{ id: string; record_url: string }>();
    const recordPage = await t.app.inject({ method: 'GET', url: new URL(record_url).pathname });
    expect(recordPage.statusCode).toBe(200);
    expect(recordPage.body).toContain('<link rel="stylesheet" href="/brand/1a4d8f.css">');
    expect(recordPage.headers['content-security-policy']).toContain("style-src 'self'");

    const sheet = await t.app.inject({ method: 'GET', url: '/brand/1a4d8f.css' });
    expect(sheet.statusCode).toBe(200);
    expect(sheet.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(sheet.headers['cache-control']).toContain('immutable');
    expect(sheet.body).toContain('--accent: #1a4d8f;');
    for (const bad of ['/brand/1A4D8F.css', '/brand/1a4d8.css', '/brand/1a4d8f.js', '/brand/%3Cscript%3E.css']) {
      expect((await t.app.inject({ method: 'GET', url: bad })).statusCode, bad).toBe(404);
    }

    const recorded = await t.request({
      method: 'PUT',
      url: `/v1/collections/${id}/users/${userId}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    const link = await t.request({ method: 'GET', url: `/v1/collections/${id}/users/${userId}/play-link`, key });
    const playLink = link.json<{ play_link: string }>().play_link;
    const player = await t.app.inject({ method: 'GET', url: new URL(playLink).pathname });
    expect(player.statusCode).toBe(200);
    expect(player.body).toContain('<link rel="stylesheet" href="/brand/1a4d8f.css">');
  });

  it("paints the invitation mail's record button (the previewed mail is the mail sent)", async () => {
    const { id } = await create({ brand_color: '#1a4d8f' });
    const mail = await get(
      t,
      organiser,
      `/dashboard/collections/${id}/invitations/preview/mail.html?kind=invitation&language=en`,
    );
    expect(mail.statusCode).toBe(200);
    expect(mail.body).toMatch(/<a href="[^"]*" style="display:inline-block;background:#1a4d8f;/);
  });

  it('leaves the pages in their own colours without one', async () => {
    const { id } = await create();
    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'plain-person@example.com', first_name: 'Ada', last_name: 'Obi' },
    });
    const page = await t.app.inject({ method: 'GET', url: new URL(user.json<{ record_url: string }>().record_url).pathname });
    expect(page.body).not.toContain('/brand/');
  });
});
