/**
 * A collection's settings for the people it invites (deadline, language, self-editing,
 * branding, invitation mail) through `/v1` and the dashboard's settings form: defaults, every
 * limit at its boundary, and the rules the schema cannot say (calendar dates, reminders need a
 * deadline, known placeholders only).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { ffmpegPath } from './helpers/binaries.js';
import { type Browserish, cookieHeader, get, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
const ORGANISER = 'settings-organiser@example.com';

beforeAll(async () => {
  t = await createTestApp();
  organiser = await signIn(t, ORGANISER, '203.0.113.41');
  ({ key } = await t.newAccount(ORGANISER));
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });
const create = async (json: Record<string, unknown> = {}) => {
  const res = await api('POST', '/v1/collections', { name: 'Graduation 2027', ...json });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string } & Record<string, unknown>>();
};
const patch = (id: string, json: unknown) => api('PATCH', `/v1/collections/${id}`, json);
const BOUNDARY = '----voicenameLogoBoundary';
const testPng = () =>
  execFileSync(
    ffmpegPath(),
    ['-hide_banner', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=640x320'].concat([
      '-frames:v',
      '1',
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      'pipe:1',
    ]),
  );
/** A browser's multipart body: the text fields, then the logo file (empty when none was chosen, as browsers send it). */
const multipartBody = (fields: Record<string, string>, logo: Buffer = Buffer.alloc(0)) =>
  Buffer.concat([
    ...Object.entries(fields).map(([name, value]) =>
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    ),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="logo"; filename="${logo.length ? 'logo.png' : ''}"\r\n`),
    Buffer.from(`Content-Type: ${logo.length ? 'image/png' : 'application/octet-stream'}\r\n\r\n`),
    logo,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
const refusal = (res: { statusCode: number; json<T>(): T }) => ({
  status: res.statusCode,
  param: res.json<{ error?: { param?: string } }>().error?.param,
});

describe('collection settings through /v1', () => {
  it('starts with no deadline, English, self-editing on, no branding and no reminders', async () => {
    const collection = await create();
    expect(collection).toMatchObject({
      deadline: null,
      language: 'en',
      self_edit: true,
      branding: { organisation_name: null, intro: null, privacy_note: null, logo_url: null },
      invitation_settings: { reminders: [], sender_name: null, reply_to: null, message: null, reminder_message: null },
    });
  });

  it('takes every setting on create, and reads them back on GET and in the list', async () => {
    const collection = await create({
      deadline: '2027-03-01',
      language: 'ar',
      self_edit: false,
      branding: { organisation_name: 'Riverside University', intro: 'Help us say your name right.', privacy_note: 'Only staff.' },
      invitation_settings: {
        reminders: [2, 7],
        sender_name: 'Graduation Office',
        reply_to: 'grad@example.edu',
        message: 'Hi {{first_name}}: {{record_url}}',
      },
    });
    const read = (await api('GET', `/v1/collections/${collection.id}`)).json();
    expect(read).toEqual(collection);
    // Reminders read back latest-first, the order they go out in.
    expect(read.invitation_settings).toEqual({
      reminders: [7, 2],
      sender_name: 'Graduation Office',
      reply_to: 'grad@example.edu',
      message: 'Hi {{first_name}}: {{record_url}}',
      reminder_message: null,
    });
    expect(read).toMatchObject({ deadline: '2027-03-01', language: 'ar', self_edit: false });
    const listed = (await api('GET', '/v1/collections?limit=100'))
      .json()
      .data.find((c: { id: string }) => c.id === collection.id);
    expect(listed).toEqual(collection);
  });

  it('changes only what PATCH names, and null clears', async () => {
    const collection = await create({ branding: { organisation_name: 'Org', intro: 'Intro' }, deadline: '2027-01-31' });
    const res = await patch(collection.id, { branding: { intro: null }, invitation_settings: { sender_name: 'Office' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().branding).toMatchObject({ organisation_name: 'Org', intro: null });
    expect(res.json().invitation_settings).toMatchObject({ sender_name: 'Office', reminders: [] });
    expect(res.json().deadline).toBe('2027-01-31');
    expect(res.json().name).toBe('Graduation 2027');
  });

  it('refuses dates that are not on the calendar, and unknown languages', async () => {
    const { id } = await create();
    expect((await patch(id, { deadline: '2027-02-29' })).statusCode).toBe(400);
    expect(refusal(await patch(id, { deadline: '2027-02-29' }))).toEqual({ status: 400, param: 'deadline' });
    expect(refusal(await patch(id, { deadline: '1 March' }))).toEqual({ status: 400, param: 'deadline' });
    expect((await patch(id, { deadline: '2028-02-29' })).statusCode).toBe(200);
    expect(refusal(await patch(id, { language: 'ja' }))).toEqual({ status: 400, param: 'language' });
    expect((await patch(id, { language: 'zh-Hans' })).json().language).toBe('zh-Hans');
  });

  it('needs a deadline for reminders, and keeps reminders when the deadline would go', async () => {
    const { id } = await create();
    expect(refusal(await patch(id, { invitation_settings: { reminders: [7] } }))).toEqual({
      status: 400,
      param: 'invitation_settings.reminders',
    });
    expect((await patch(id, { deadline: '2027-05-01', invitation_settings: { reminders: [7] } })).statusCode).toBe(200);
    expect(refusal(await patch(id, { deadline: null }))).toEqual({ status: 400, param: 'deadline' });
    expect((await patch(id, { deadline: null, invitation_settings: { reminders: [] } })).json().deadline).toBeNull();
  });

  it('takes 5 reminders of 1 to 365 days, not 6, not 0, not 366, no repeats', async () => {
    const { id } = await create({ deadline: '2027-06-30' });
    const reminders = (days: number[]) => patch(id, { invitation_settings: { reminders: days } });
    expect((await reminders([365, 30, 7, 2, 1])).json().invitation_settings.reminders).toEqual([365, 30, 7, 2, 1]);
    for (const days of [[1, 2, 3, 4, 5, 6], [0], [366], [7, 7], [1.5]]) {
      const res = refusal(await reminders(days));
      expect(res.status, JSON.stringify(days)).toBe(400);
      expect(res.param, JSON.stringify(days)).toMatch(/^invitation_settings\.reminders(\[\d\])?$/);
    }
  });

  it('enforces the text limits at their boundary', async () => {
    const { id } = await create();
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [
        { branding: { organisation_name: 'o'.repeat(100) } },
        { branding: { organisation_name: 'o'.repeat(101) } },
        'branding.organisation_name',
      ],
      [{ branding: { intro: 'i'.repeat(1000) } }, { branding: { intro: 'i'.repeat(1001) } }, 'branding.intro'],
      [
        { branding: { privacy_note: 'p'.repeat(1000) } },
        { branding: { privacy_note: 'p'.repeat(1001) } },
        'branding.privacy_note',
      ],
      [
        { invitation_settings: { sender_name: 's'.repeat(100) } },
        { invitation_settings: { sender_name: 's'.repeat(101) } },
        'invitation_settings.sender_name',
      ],
      [
        { invitation_settings: { message: 'm'.repeat(5000) } },
        { invitation_settings: { message: 'm'.repeat(5001) } },
        'invitation_settings.message',
      ],
    ];
    for (const [fits, tooLong, param] of cases) {
      expect((await patch(id, fits)).statusCode, param).toBe(200);
      expect(refusal(await patch(id, tooLong))).toEqual({ status: 400, param });
    }
    expect(refusal(await patch(id, { invitation_settings: { reply_to: 'not an address' } }))).toEqual({
      status: 400,
      param: 'invitation_settings.reply_to',
    });
    expect(refusal(await patch(id, { branding: { logo_url: 'https://example.com/logo.png' } })).status).toBe(400);
  });

  it('refuses an invitation message with a placeholder it would not fill, naming it', async () => {
    const { id } = await create();
    const res = await patch(id, {
      invitation_settings: { message: 'Dear {{ first_name }}, record by {{due_date}}: {{record_url}}' },
    });
    expect(refusal(res)).toEqual({ status: 400, param: 'invitation_settings.message' });
    expect(res.json().error.message).toContain('{{due_date}}');
    const ok = await patch(id, {
      invitation_settings: { message: '{{first_name}} {{display_name}} {{collection}} {{deadline}} {{record_url}}' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('refuses control and bidirectional characters in branding text', async () => {
    const { id } = await create();
    expect((await patch(id, { branding: { organisation_name: 'Evil\u202Egro' } })).statusCode).toBe(400);
    expect((await patch(id, { branding: { intro: 'line one\nline two' } })).statusCode).toBe(200);
  });
});

describe('the dashboard settings form', () => {
  it('saves the same settings the API reads back, and shows a refusal on the form with what was typed', async () => {
    const { id } = await create();
    const page = await get(t, organiser, `/dashboard/collections/${id}/settings`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Invitations and branding');
    const fields = {
      csrf: organiser.csrf,
      deadline: '2027-04-15',
      language: 'fr',
      self_edit: '1',
      organisation_name: 'Lycée Voltaire',
      intro: 'Pour la cérémonie.',
      privacy_note: '',
      sender_name: 'Secrétariat',
      reply_to: 'secretariat@example.fr',
      reminders: '7, 2',
      message: '',
    };
    const saved = await post(t, organiser, `/dashboard/collections/${id}/settings`, fields);
    expect(saved.statusCode, saved.body).toBe(303);
    expect(saved.headers.location).toBe(`/dashboard/collections/${id}?notice=settings-updated`);
    const read = (await api('GET', `/v1/collections/${id}`)).json();
    expect(read).toMatchObject({
      deadline: '2027-04-15',
      language: 'fr',
      self_edit: true,
      branding: { organisation_name: 'Lycée Voltaire', intro: 'Pour la cérémonie.', privacy_note: null },
      invitation_settings: { reminders: [7, 2], sender_name: 'Secrétariat', reply_to: 'secretariat@example.fr', message: null },
    });

    const refused = await post(t, organiser, `/dashboard/collections/${id}/settings`, { ...fields, reminders: 'next week' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('role="alert"');
    expect(refused.body).toContain('value="next week"');
    expect(refused.body).toMatch(/id="reminders"[^>]*aria-invalid="true"/);

    const { self_edit: _checked, ...withoutSelfEdit } = fields;
    const unchecked = await post(t, organiser, `/dashboard/collections/${id}/settings`, withoutSelfEdit);
    expect(unchecked.statusCode).toBe(303);
    expect((await api('GET', `/v1/collections/${id}`)).json().self_edit).toBe(false);
  });

  it("is 404 for another organisation's collection", async () => {
    const { id } = await create();
    const stranger = await signIn(t, 'settings-stranger@example.com', '203.0.113.42');
    expect((await get(t, stranger, `/dashboard/collections/${id}/settings`)).statusCode).toBe(404);
    const res = await post(t, stranger, `/dashboard/collections/${id}/settings`, { csrf: stranger.csrf, language: 'de' });
    expect(res.statusCode).toBe(404);
  });

  it('uploads a logo (re-encoded), refuses an SVG on the page, and removes it', async () => {
    const { id } = await create();
    const boundary = BOUNDARY;
    const upload = (file: Buffer, type: string, csrf = organiser.csrf) =>
      t.app.inject({
        method: 'POST',
        url: `/dashboard/collections/${id}/logo`,
        remoteAddress: organiser.ip,
        headers: { cookie: cookieHeader(organiser), 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n${csrf}\r\n`),
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="logo"\r\nContent-Type: ${type}\r\n\r\n`,
          ),
          file,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]),
      });
    const png = testPng();
    expect((await upload(png, 'image/png', 'forged')).statusCode).toBe(403);
    const res = await upload(png, 'image/png');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/collections/${id}/settings#logo`);
    const logoUrl = (await api('GET', `/v1/collections/${id}`)).json().branding.logo_url as string;
    expect(logoUrl).toMatch(/\/logos\/[0-9a-f]{64}\.png$/);
    const settings = (await get(t, organiser, `/dashboard/collections/${id}/settings`)).body;
    expect(settings).toContain(`<img src="${logoUrl}" alt="Current logo"`);
    // The dashboard's CSP refuses inline styles: the preview's size comes from the stylesheet.
    expect(settings).not.toMatch(/\sstyle="/);

    const svg = await upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'image/svg+xml');
    expect(svg.statusCode).toBe(415);
    expect(svg.body).toContain('id="logo-error"');
    expect(svg.body).toContain('A logo must be a PNG, JPEG or WebP image');

    const removed = await post(t, organiser, `/dashboard/collections/${id}/logo/remove`, { csrf: organiser.csrf });
    expect(removed.statusCode).toBe(303);
    expect((await api('GET', `/v1/collections/${id}`)).json().branding.logo_url).toBeNull();
  });

  it('keeps what was typed when a logo is uploaded or removed from the page, and saves a chosen logo with the rest', async () => {
    const { id } = await create();
    const page = (await get(t, organiser, `/dashboard/collections/${id}/settings`)).body;
    // The logo's buttons belong to the settings form, after "Save settings" (Enter still saves).
    const form = page.slice(page.indexOf('<form method="post" action="/dashboard/collections/'), page.lastIndexOf('</form>'));
    expect(form).toContain('enctype="multipart/form-data"');
    expect(form.indexOf('Save settings')).toBeLessThan(form.indexOf(`formaction="/dashboard/collections/${id}/logo"`));
    const typed = {
      csrf: organiser.csrf,
      deadline: '2027-06-30',
      language: 'de',
      self_edit: '1',
      organisation_name: 'Riverside University',
      intro: 'Class of 2027: say your name.',
      reminders: '7, 2',
    };
    const send = (path: string, logo?: Buffer) =>
      t.app.inject({
        method: 'POST',
        url: `/dashboard/collections/${id}/${path}`,
        remoteAddress: organiser.ip,
        headers: { cookie: cookieHeader(organiser), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
        payload: multipartBody(typed, logo),
      });

    const uploaded = await send('logo', testPng());
    expect(uploaded.statusCode).toBe(200);
    expect(uploaded.body).toContain('id="logo-notice"');
    expect(uploaded.body).toContain('value="2027-06-30"');
    expect(uploaded.body).toContain('>Class of 2027: say your name.</textarea>');
    expect(uploaded.body).toContain('value="7, 2"');
    expect(uploaded.body).toContain('<option value="de" selected>');
    let saved = (await api('GET', `/v1/collections/${id}`)).json();
    expect(saved.branding.logo_url).toMatch(/\.png$/);
    expect(saved.deadline).toBeNull(); // shown again, not saved behind the organiser's back

    const removed = await send('logo/remove');
    expect(removed.statusCode).toBe(200);
    expect(removed.body).toContain('value="2027-06-30"');
    expect((await api('GET', `/v1/collections/${id}`)).json().branding.logo_url).toBeNull();

    const both = await send('settings', testPng());
    expect(both.statusCode).toBe(303);
    saved = (await api('GET', `/v1/collections/${id}`)).json();
    expect(saved).toMatchObject({ deadline: '2027-06-30', language: 'de', branding: { intro: 'Class of 2027: say your name.' } });
    expect(saved.branding.logo_url).toMatch(/\.png$/);
  });
});
