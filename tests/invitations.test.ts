/**
 * Invitations through `/v1` to a real SMTP server: who is queued and who skipped, the mail
 * itself (text and HTML parts, the record link, the collection's language, sender and template,
 * RFC 8058 one-click unsubscribe), per-person status, retries of temporary failures, permanent
 * failures with their reason, the events, the re-record request and the throttle.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { type ReceivedMail, startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
let t: TestApp;
let key: string;
let sender: MessageSender;
const clock = new ManualClock('2027-02-20T09:00:00.000Z');

beforeAll(async () => {
  smtp = await startSmtpServer();
  t = await createTestApp({
    clock,
    env: { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: '0', MAIL_FROM: 'voicename <mail@voicename.test>' },
  });
  ({ key } = await t.newAccount());
  sender = new MessageSender(t.deps, 'test-sender');
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

interface Person {
  id: string;
  email: string;
  record_url: string;
  invitation: { status: string | null; error: string | null; invited_at: string | null; unsubscribed_at: string | null };
}

const api = (method: 'GET' | 'POST' | 'PUT', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

async function collectionWith(people: number, settings: Record<string, unknown> = {}) {
  const created = await api('POST', '/v1/collections', { name: 'Graduation 2027', ...settings });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: string }>().id;
  const users: Person[] = [];
  for (let i = 0; i < people; i++) {
    const res = await api('POST', `/v1/collections/${id}/users`, {
      email: `p${i}-${id.slice(0, 8)}@example.com`,
      first_name: `Siobhán${i}`,
      last_name: 'Ní Bhriain',
    });
    expect(res.statusCode, res.body).toBe(201);
    users.push(res.json<Person>());
  }
  return { id, users };
}

const invite = (collectionId: string, json: unknown) => api('POST', `/v1/collections/${collectionId}/invitations`, json);
const person = async (collectionId: string, userId: string) =>
  (await api('GET', `/v1/collections/${collectionId}/users/${userId}`)).json<Person>();
const mailTo = (address: string) => smtp.received.filter((mail) => mail.to.includes(address));
const unsubscribeLinkOf = (mail: ReceivedMail) =>
  (mail.parsed.headers.get('list') as { unsubscribe: { url: string } }).unsubscribe.url;
const eventsOf = (type: string) =>
  t.deps.db.kysely.selectFrom('events').selectAll().where('type', '=', type).orderBy('created_at').execute();

describe('POST /v1/collections/{id}/invitations', () => {
  it('queues one mail per person (202), and the sender delivers text and HTML with the record link and one-click unsubscribe', async () => {
    const { id, users } = await collectionWith(2, {
      deadline: '2027-03-15',
      invitation_settings: { sender_name: 'Graduation Office', reply_to: 'grad@example.edu' },
      branding: { organisation_name: 'Riverside University' },
    });
    const [a, b] = users as [Person, Person];
    const res = await invite(id, { user_ids: [a.id, b.id] });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({
      object: 'invitation_batch',
      collection_id: id,
      dry_run: false,
      queued: 2,
      reminders: 0,
      by_language: { en: 2 },
      skipped: { recently_invited: 0, unsubscribed: 0 },
    });
    expect((await person(id, a.id)).invitation).toMatchObject({ status: 'queued', invited_at: clock.now().toISOString() });

    await sender.kick();
    const [mail] = mailTo(a.email);
    expect(mail, 'the invitation reached the SMTP server').toBeDefined();
    const parsed = mail!.parsed;
    expect(parsed.subject).toBe('Graduation 2027: record how your name is said');
    expect(parsed.from?.value[0]).toEqual({ name: 'Graduation Office', address: 'mail@voicename.test' });
    expect(parsed.replyTo?.value[0]?.address).toBe('grad@example.edu');
    expect(parsed.text).toContain('Hello Siobhán0,');
    expect(parsed.text).toContain(a.record_url);
    expect(parsed.text).toContain('Please record by March 15, 2027.');
    expect(parsed.text).toContain('Sent by voicename for Riverside University.');
    expect(parsed.html).toContain(`href="${a.record_url}"`);
    expect(parsed.html).toContain('<html lang="en" dir="ltr">');
    expect(parsed.headers.get('list')).toMatchObject({
      unsubscribe: { url: expect.stringMatching(/^http:\/\/localhost:3000\/u\/[A-Za-z0-9_-]{32}$/) },
      'unsubscribe-post': { name: 'List-Unsubscribe=One-Click' },
    });
    const unsubscribe = { url: unsubscribeLinkOf(mail!) };
    expect(parsed.text).toContain(unsubscribe.url);

    expect((await person(id, a.id)).invitation).toMatchObject({ status: 'sent', error: null });
    const sent = (await eventsOf('invitation.sent')).map((event) => JSON.parse(event.data));
    expect(sent).toContainEqual(
      expect.objectContaining({ collection_id: id, user_id: a.id, email: a.email, kind: 'invitation' }),
    );
    expect(mailTo(b.email)).toHaveLength(1);
  });

  it('skips people invited in the last 24 hours unless resend is true', async () => {
    const { id, users } = await collectionWith(2);
    const [a, b] = users as [Person, Person];
    expect((await invite(id, { user_ids: [a.id] })).statusCode).toBe(202);
    clock.advance(23 * 3600_000);
    expect((await invite(id, { user_ids: [a.id, b.id] })).json()).toMatchObject({ queued: 1, skipped: { recently_invited: 1 } });
    expect((await invite(id, { user_ids: [a.id], resend: true })).json()).toMatchObject({
      queued: 1,
      skipped: { recently_invited: 0 },
    });
    clock.advance(25 * 3600_000);
    expect((await invite(id, { user_ids: [b.id] })).json()).toMatchObject({ queued: 1, skipped: { recently_invited: 0 } });
    await sender.kick();
    expect(mailTo(a.email)).toHaveLength(2);
    expect(mailTo(b.email)).toHaveLength(2);
  });

  it('with filter not_recorded, invites only people who still have to record', async () => {
    const { id, users } = await collectionWith(3);
    const [recorded, , rerecord] = users as [Person, Person, Person];
    const speech = fs.readFileSync(speechWav());
    for (const who of [recorded, rerecord]) {
      const res = await t.request({
        method: 'PUT',
        url: `/v1/collections/${id}/users/${who.id}/recording`,
        key,
        headers: { 'content-type': 'audio/wav' },
        payload: speech,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    await api('POST', `/v1/collections/${id}/users/${rerecord.id}/review`, { decision: 'request_rerecord', note: 'Too quiet' });
    const res = await invite(id, { filter: 'not_recorded' });
    expect(res.json()).toMatchObject({ queued: 2 });
    expect((await person(id, recorded.id)).invitation.status).toBeNull();
  });

  it('refuses bad requests in the error envelope at every limit', async () => {
    const { id, users } = await collectionWith(1);
    const status = async (json: unknown) => {
      const res = await invite(id, json);
      return { status: res.statusCode, param: res.json<{ error?: { param?: string } }>().error?.param };
    };
    expect(await status({})).toEqual({ status: 400, param: 'user_ids' });
    expect(await status({ user_ids: [users[0]!.id], filter: 'not_recorded' })).toMatchObject({ status: 400 });
    expect((await status({ user_ids: [] })).status).toBe(400);
    expect((await status({ filter: 'everyone' })).status).toBe(400);
    const ids = Array.from({ length: 1001 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    expect((await status({ user_ids: ids })).status).toBe(400);
    expect(await status({ user_ids: ids.slice(0, 1000) })).toEqual({ status: 404, param: 'user_ids[0]' });
    expect(await status({ user_ids: [users[0]!.id, ids[0]] })).toEqual({ status: 404, param: 'user_ids[1]' });
    const other = await t.newAccount();
    const foreign = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/invitations`,
      key: other.key,
      json: { filter: 'not_recorded' },
    });
    expect(foreign.statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: `/v1/collections/${id}/invitations`, json: {} })).statusCode).toBe(401);
  });
});

describe('the mail', () => {
  it("uses the collection's language and template, escaping the organiser's text in the HTML part", async () => {
    const { id, users } = await collectionWith(1, {
      language: 'es',
      deadline: '2027-03-15',
      invitation_settings: { message: 'Hola {{first_name}} <b>&</b>\n\nGraba aquí: {{record_url}}\nFecha: {{deadline}}' },
    });
    const [a] = users as [Person];
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    const parsed = mailTo(a.email)[0]!.parsed;
    expect(parsed.subject).toBe('Graduation 2027: graba cómo se pronuncia tu nombre');
    expect(parsed.text).toContain(`Hola Siobhán0 <b>&</b>\n\nGraba aquí: ${a.record_url}\nFecha: 15 de marzo de 2027`);
    expect(parsed.html).toContain('Hola Siobhán0 &lt;b&gt;&amp;&lt;/b&gt;');
    expect(parsed.html).not.toContain('<b>&');
    expect(parsed.html).toContain(`<a href="${a.record_url}">${a.record_url}</a>`);
    expect(parsed.html).toContain('<html lang="es" dir="ltr">');
  });

  it('is right-to-left in Arabic', async () => {
    const { id, users } = await collectionWith(1, { language: 'ar' });
    await invite(id, { user_ids: [users[0]!.id] });
    await sender.kick();
    const parsed = mailTo(users[0]!.email)[0]!.parsed;
    expect(parsed.html).toContain('<html lang="ar" dir="rtl">');
    expect(parsed.subject).toContain('سجّل طريقة نطق اسمك');
  });
});

describe('one-click unsubscribe', () => {
  it('asks on GET, unsubscribes on the RFC 8058 POST, and the person gets no more mail', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    const url = new URL(unsubscribeLinkOf(mailTo(a.email)[0]!));

    const page = await t.request({ method: 'GET', url: url.pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Stop e-mails about Graduation 2027 to');
    expect(page.body).toContain(`<form method="post" action="${url.pathname}">`);
    expect((await person(id, a.id)).invitation.unsubscribed_at, 'opening the link changes nothing').toBeNull();

    const oneClick = await t.request({
      method: 'POST',
      url: url.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    expect(oneClick.body).toContain('You are unsubscribed');
    expect((await person(id, a.id)).invitation.unsubscribed_at).toBe(clock.now().toISOString());

    clock.advance(25 * 3600_000);
    expect((await invite(id, { user_ids: [a.id], resend: true })).json()).toMatchObject({
      queued: 0,
      skipped: { unsubscribed: 1 },
    });
    expect((await t.request({ method: 'GET', url: '/u/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' })).statusCode).toBe(404);
  });

  it('drops mail still queued when the person unsubscribes before it leaves', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    const url = new URL(unsubscribeLinkOf(mailTo(a.email)[0]!));
    clock.advance(25 * 3600_000);
    await invite(id, { user_ids: [a.id] });
    await t.request({ method: 'POST', url: url.pathname });
    await sender.kick();
    expect(mailTo(a.email)).toHaveLength(1);
    expect((await person(id, a.id)).invitation.status).toBe('sent');
  });
});

describe('failures', () => {
  it('retries a temporary refusal (4xx) with backoff and sends it on a later attempt', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    smtp.refuse(a.email, 451, 1);
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    expect(mailTo(a.email)).toHaveLength(0);
    expect((await person(id, a.id)).invitation.status).toBe('queued');
    await sender.kick();
    expect(mailTo(a.email), 'not before its retry time').toHaveLength(0);
    clock.advance(61_000);
    await sender.kick();
    expect(mailTo(a.email)).toHaveLength(1);
    expect((await person(id, a.id)).invitation.status).toBe('sent');
  });

  it('fails a permanent refusal (5xx) at once, with the reason on the person and an invitation.failed event', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    smtp.refuse(a.email, 550);
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    const { invitation } = await person(id, a.id);
    expect(invitation.status).toBe('failed');
    expect(invitation.error).toMatch(/550.*No such mailbox/);
    const failed = (await eventsOf('invitation.failed')).map((event) => JSON.parse(event.data));
    expect(failed).toContainEqual(expect.objectContaining({ user_id: a.id, kind: 'invitation', error: invitation.error }));
  });
});

describe('re-record requests', () => {
  it("mail the person the organiser's note with their record link", async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    const res = await t.request({
      method: 'PUT',
      url: `/v1/collections/${id}/users/${a.id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(res.statusCode, res.body).toBe(200);
    await api('POST', `/v1/collections/${id}/users/${a.id}/review`, {
      decision: 'request_rerecord',
      note: 'Say the family name too',
    });
    await sender.kick();
    const [mail] = mailTo(a.email);
    expect(mail!.parsed.subject).toBe('Graduation 2027: please record your name again');
    expect(mail!.parsed.text).toContain('> Say the family name too');
    expect(mail!.parsed.text).toContain(a.record_url);
    expect((await eventsOf('invitation.sent')).map((e) => JSON.parse(e.data))).toContainEqual(
      expect.objectContaining({ user_id: a.id, kind: 'rerecord' }),
    );
  });
});

describe('throttle', () => {
  it('sends at most MAIL_RATE_PER_MINUTE in any minute across senders, spaced evenly', async () => {
    const throttled = await createTestApp({
      clock,
      database: t.database,
      env: { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: '2' },
    });
    try {
      // Out of the minute in which the tests above sent their mail.
      clock.advance(61_000);
      const waits: number[] = [];
      const pacing = () => {
        let now = 0;
        return {
          now: () => now,
          sleep: async (ms: number) => {
            waits.push(ms);
            now += ms;
          },
        };
      };
      const one = new MessageSender(throttled.deps, 'throttled-1', pacing());
      const two = new MessageSender(throttled.deps, 'throttled-2', pacing());
      // Mail queued by the first app, on the same database.
      const { id, users } = await collectionWith(5);
      const before = smtp.received.length;
      await invite(id, { user_ids: users.map((u) => u.id) });
      await Promise.all([one.kick(), two.kick()]);
      expect(smtp.received.length - before).toBe(2);
      clock.advance(61_000);
      await one.kick();
      expect(smtp.received.length - before).toBe(4);
      // Each sender spaces its own sends 60 s / 2 apart.
      expect(waits.length).toBeGreaterThan(0);
      expect(new Set(waits)).toEqual(new Set([30_000]));
    } finally {
      await throttled.app.close();
      await throttled.deps.notifications.close();
      await throttled.deps.rateLimits.close();
      await throttled.deps.cards.renderer.close();
    }
  });
});
