/**
 * Invitations with care: each person's own language (API, batch, CSV import, provenance) for
 * their mail and record page; the confirmation's counts through the API's dry run; the
 * organiser's reminder text; the preview of the exact mail per language and kind; and the test
 * send to the signed-in member, through the development mailbox the tests read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import { queueDueReminders } from '../src/features/invitations/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';

let t: TestApp;
let key: string;
let organiser: Browserish & { csrf: string };
let sender: MessageSender;
const ORGANISER = 'care-organiser@example.com';

beforeAll(async () => {
  t = await createTestApp({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  organiser = await signIn(t, ORGANISER, '203.0.113.61');
  ({ key } = await t.newAccount(ORGANISER));
  sender = new MessageSender(t.deps, 'care-sender');
});
afterAll(() => t.close());

interface Person {
  id: string;
  email: string;
  record_url: string;
  language: string | null;
  field_sources: Record<string, { source: string }>;
}

async function collection(settings: Record<string, unknown> = {}) {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Graduation', ...settings } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function addPerson(collectionId: string, firstName: string, extra: Record<string, unknown> = {}): Promise<Person> {
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: `${firstName.toLowerCase()}-${collectionId.slice(0, 6)}@example.com`, first_name: firstName, ...extra },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Person>();
}

describe("a person's own language", () => {
  it('is set by create, update, batch and CSV import, stored as its locale, tracked like other fields, and checked', async () => {
    const id = await collection();
    const ana = await addPerson(id, 'Ana', { language: 'es-MX' });
    expect(ana.language).toBe('es');
    expect(ana.field_sources.language?.source).toBe('organiser');

    const updated = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${id}/users/${ana.id}`,
      key,
      json: { language: 'zh-CN' },
    });
    expect(updated.json()).toMatchObject({ language: 'zh-Hans' });
    const cleared = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${id}/users/${ana.id}`,
      key,
      json: { language: null },
    });
    expect(cleared.json()).toMatchObject({ language: null });

    const bad = await t.request({ method: 'PATCH', url: `/v1/collections/${id}/users/${ana.id}`, key, json: { language: 'ga' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'parameter_invalid', param: 'language' });
    expect(bad.json().error.message).toContain('en, es, fr, de, zh-Hans, ar');

    const batch = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users/batch`,
      key,
      json: { users: [{ email: 'bo@example.com', first_name: 'Bo', language: 'fr' }] },
    });
    expect(batch.statusCode, batch.body).toBe(201);

    const file = 'email,first_name,Language,name_language\r\nchen@example.com,Chen,de,zh\r\nzed@example.com,Zed,tlh,\r\n';
    const imported = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users/import?mode=valid_rows`,
      key,
      headers: { 'content-type': 'text/csv' },
      payload: file,
    });
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().errors).toEqual([
      expect.objectContaining({
        row: 3,
        column: 'Language',
        code: 'parameter_invalid',
        message: expect.stringContaining('"Language"'),
      }),
    ]);
    const list = await t.request({ method: 'GET', url: `/v1/collections/${id}/users?limit=100`, key });
    const byEmail = new Map(list.json<{ data: (Person & { name_language: string | null })[] }>().data.map((p) => [p.email, p]));
    expect(byEmail.get('bo@example.com')?.language).toBe('fr');
    // "language" is the person's; the name's language has its own column.
    expect(byEmail.get('chen@example.com')).toMatchObject({ language: 'de', name_language: 'zh' });
  });

  it('is chosen on the dashboard when adding a person, and shown on their page', async () => {
    const id = await collection();
    const base = `/dashboard/collections/${id}`;
    const form = await get(t, organiser, `${base}/people/new`);
    expect(form.body).toContain('<option value="">The collection’s language</option>');
    const added = await post(t, organiser, `${base}/people`, {
      csrf: organiser.csrf,
      first_name: 'Karim',
      email: 'karim@example.com',
      language: 'ar',
    });
    expect(added.statusCode, added.body).toBe(303);
    const page = await get(t, organiser, added.headers.location as string);
    expect(page.body).toContain('<dd id="person-language">العربية</dd>');
    const refused = await post(t, organiser, `${base}/people`, {
      csrf: organiser.csrf,
      first_name: 'Lior',
      email: 'lior@example.com',
      language: 'he',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<select id="person-language" name="language" aria-invalid="true"');
  });

  it("is the language of the person's mail and record page (before the browser's), else the browser's, else the collection's", async () => {
    const id = await collection({ language: 'en' });
    const dieter = await addPerson(id, 'Dieter', { language: 'de' });
    const emma = await addPerson(id, 'Emma');
    const invited = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/invitations`,
      key,
      json: { filter: 'not_recorded' },
    });
    expect(invited.json()).toMatchObject({ queued: 2, by_language: { de: 1, en: 1 } });
    await sender.kick();
    expect(t.deps.mailer.lastMessageTo(dieter.email)?.subject).toBe(
      'Graduation: Nehmen Sie auf, wie Ihr Name ausgesprochen wird',
    );
    expect(t.deps.mailer.lastMessageTo(emma.email)?.subject).toBe('Graduation: record how your name is said');

    const page = (person: Person, acceptLanguage: string) =>
      t.request({ method: 'GET', url: new URL(person.record_url).pathname, headers: { 'accept-language': acceptLanguage } });
    expect((await page(dieter, 'fr')).body).toContain('<html lang="de" dir="ltr">');
    expect((await page(emma, 'fr')).body).toContain('<html lang="fr" dir="ltr">');
    expect((await page(emma, 'tlh')).body).toContain('<html lang="en" dir="ltr">');
    // The unsubscribe page of Dieter's mail too.
    const unsubscribe = /\/u\/[A-Za-z0-9_-]{32}/.exec(t.deps.mailer.lastMessageTo(dieter.email)?.text ?? '')?.[0];
    const unsubscribePage = await t.request({ method: 'GET', url: unsubscribe!, headers: { 'accept-language': 'fr' } });
    expect(unsubscribePage.body).toContain('<html lang="de"');
  });
});

describe('the reminder text and the count before sending', () => {
  it('counts without sending on a dry run, and gives people invited before the reminder in its own words', async () => {
    const id = await collection({
      invitation_settings: {
        message: 'Dear {{first_name}}, please record: {{record_url}}',
        reminder_message: 'Still waiting for you, {{first_name}}! {{record_url}}',
      },
    });
    const farah = await addPerson(id, 'Farah');
    const dry = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/invitations`,
      key,
      json: { filter: 'not_recorded', dry_run: true },
    });
    expect(dry.statusCode).toBe(200);
    expect(dry.json()).toMatchObject({ dry_run: true, queued: 1, reminders: 0, by_language: { en: 1 } });
    expect(
      (await t.request({ method: 'GET', url: `/v1/collections/${id}/users/${farah.id}`, key })).json().invitation.status,
    ).toBeNull();

    await t.request({ method: 'POST', url: `/v1/collections/${id}/invitations`, key, json: { filter: 'not_recorded' } });
    await sender.kick();
    expect(t.deps.mailer.lastMessageTo(farah.email)?.text).toContain('Dear Farah, please record:');

    const again = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/invitations`,
      key,
      json: { filter: 'not_recorded', resend: true },
    });
    expect(again.json()).toMatchObject({ dry_run: false, queued: 1, reminders: 1 });
    await sender.kick();
    const reminder = t.deps.mailer.lastMessageTo(farah.email);
    expect(reminder?.subject).toBe('Reminder: record how your name is said for Graduation');
    expect(reminder?.text).toContain(`Still waiting for you, Farah! ${farah.record_url}`);
    expect(reminder?.text).not.toContain('Dear Farah');

    const typo = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${id}`,
      key,
      json: { invitation_settings: { reminder_message: 'Hi {{firstname}}' } },
    });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().error).toMatchObject({ param: 'invitation_settings.reminder_message' });
  });

  it("goes out on a scheduled reminder day in the organiser's words and the person's language", async () => {
    const today = new Date();
    const deadline = new Date(today.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
    const id = await collection({
      deadline,
      invitation_settings: { reminders: [2], reminder_message: 'Plus que deux jours, {{first_name}} : {{record_url}}' },
    });
    const julie = await addPerson(id, 'Julie', { language: 'fr' });
    await t.request({ method: 'POST', url: `/v1/collections/${id}/invitations`, key, json: { user_ids: [julie.id] } });
    await sender.kick();
    // Invited before the reminder day.
    const yesterday = new Date(today.getTime() - 86_400_000).toISOString();
    await t.deps.db.kysely.updateTable('users').set({ invited_at: yesterday }).where('id', '=', julie.id).execute();
    expect(await queueDueReminders(t.deps)).toBeGreaterThanOrEqual(1);
    await sender.kick();
    const reminder = t.deps.mailer.lastMessageTo(julie.email);
    expect(reminder?.subject).toMatch(/^Rappel.+votre nom pour Graduation$/);
    expect(reminder?.text).toContain(`Plus que deux jours, Julie : ${julie.record_url}`);
  });

  it('keeps the reminder text on the settings page', async () => {
    const id = await collection();
    const base = `/dashboard/collections/${id}`;
    const saved = await post(t, organiser, `${base}/settings`, {
      csrf: organiser.csrf,
      language: 'en',
      reminders: '',
      message: '',
      reminder_message: 'Last call, {{first_name}}.\r\nIt takes a minute.',
    });
    expect(saved.statusCode, saved.body).toBe(303);
    const read = (await t.request({ method: 'GET', url: `/v1/collections/${id}`, key })).json();
    expect(read.invitation_settings.reminder_message).toBe('Last call, {{first_name}}.\nIt takes a minute.');
    expect((await get(t, organiser, `${base}/settings`)).body).toContain('Last call, {{first_name}}.');
  });
});

describe('the mail preview and the test send', () => {
  it('shows the exact mail per language and kind, drawn for the first person reading it', async () => {
    const id = await collection({ language: 'en', invitation_settings: { sender_name: 'Registry' } });
    await addPerson(id, 'Gabriela', { language: 'es' });
    const base = `/dashboard/collections/${id}/invitations/preview`;

    const spanish = await get(t, organiser, `${base}?kind=invitation&language=es`);
    expect(spanish.statusCode).toBe(200);
    expect(spanish.body).toContain('<dd id="preview-subject" dir="auto">Graduation: graba cómo se pronuncia tu nombre</dd>');
    expect(spanish.body).toContain('Hola, Gabriela:');
    expect(spanish.body).toContain('As <bdi>Gabriela</bdi> will get it');
    expect(spanish.body).toContain('<dd id="preview-from">Registry</dd>');
    expect(spanish.body).toContain('/r/example-personal-link');

    const french = await get(t, organiser, `${base}?kind=reminder&language=fr`);
    expect(french.body).toContain('Nobody reads Français yet: shown with an example name.');
    expect(french.body).toContain('<strong aria-current="page">Reminder</strong>');

    const mail = await get(t, organiser, `${base}/mail.html?kind=invitation&language=es`);
    expect(mail.headers['content-security-policy']).toContain('sandbox');
    expect(mail.body).toContain('<html lang="es" dir="ltr">');

    expect((await get(t, organiser, `${base}?kind=invitation&language=tlh`)).statusCode).toBe(400);
    // Another organisation's collection is not found.
    const other = await signIn(t, 'care-stranger@example.com', '203.0.113.62');
    await t.newAccount('care-stranger@example.com');
    expect((await get(t, other, `${base}?kind=invitation&language=es`)).statusCode).toBe(404);
  });

  it('sends the previewed mail to the signed-in member, not to anyone in the collection; viewers cannot', async () => {
    const id = await collection({ language: 'en' });
    const person = await addPerson(id, 'Hana', { language: 'ar' });
    const res = await post(t, organiser, `/dashboard/collections/${id}/invitations/test`, {
      csrf: organiser.csrf,
      kind: 'reminder',
      language: 'ar',
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`The test mail is sent to <bdi>${ORGANISER}</bdi>.`);
    const mail = t.deps.mailer.lastMessageTo(ORGANISER);
    expect(mail?.subject).toContain('Graduation');
    expect(mail?.html).toContain('<html lang="ar" dir="rtl">');
    expect(t.deps.mailer.lastMessageTo(person.email)).toBeUndefined();

    const audit = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select('action')
      .where('action', '=', 'invitations.test_sent')
      .execute();
    expect(audit.length).toBeGreaterThan(0);

    const viewer = await inviteAndJoin(t, organiser, 'care-viewer@example.com', 'viewer');
    const page = await get(t, viewer, `/dashboard/collections/${id}/invitations/preview?kind=invitation&language=ar`);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('id="test-send"');
    const refused = await post(t, viewer, `/dashboard/collections/${id}/invitations/test`, {
      csrf: viewer.csrf,
      kind: 'invitation',
      language: 'ar',
    });
    expect(refused.statusCode).toBe(403);
  });
});
