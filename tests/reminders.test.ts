/**
 * Reminders before a collection's deadline, scheduled by two workers at once on one database
 * (on PostgreSQL, two connections racing for real): each person still to record gets one
 * reminder per reminder day, at the real SMTP server; people who recorded, were never
 * invited, unsubscribed, or were invited that very day get none.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import { dueReminderDay, queueDueReminders } from '../src/features/invitations/service.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { startSmtpServer, type TestSmtpServer } from './helpers/smtp.js';

let smtp: TestSmtpServer;
let a: TestApp;
let b: TestApp;
let key: string;
const clock = new ManualClock('2027-02-10T08:00:00.000Z');

beforeAll(async () => {
  smtp = await startSmtpServer();
  const env = { SMTP_URL: smtp.url, MAIL_RATE_PER_MINUTE: '0' };
  a = await createTestApp({ clock, env });
  b = await createTestApp({ clock, env, database: a.database });
  ({ key } = await a.newAccount());
});
afterAll(async () => {
  await b.app.close();
  await b.deps.notifications.close();
  await b.deps.rateLimits.close();
  await b.deps.cards.renderer.close();
  await a.close();
  await smtp.close();
});

const api = (method: 'GET' | 'POST' | 'PUT', url: string, json?: unknown) =>
  a.request({ method, url, key, ...(json === undefined ? {} : { json }) });

/** Both workers schedule and send at the same moment. */
async function bothWorkersRun() {
  await Promise.all([queueDueReminders(a.deps), queueDueReminders(b.deps)]);
  await Promise.all([new MessageSender(a.deps, 'worker-a').kick(), new MessageSender(b.deps, 'worker-b').kick()]);
}

const remindersTo = (address: string) =>
  smtp.received.filter((mail) => mail.to.includes(address) && mail.parsed.subject?.startsWith('Reminder'));

describe('reminders', () => {
  it('go once per reminder day, only to invited people still to record, with two workers at once', async () => {
    const created = await api('POST', '/v1/collections', {
      name: 'Convocation',
      deadline: '2027-03-01',
      invitation_settings: { reminders: [7, 2] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    const people: Record<string, { id: string; email: string }> = {};
    for (const name of ['waiting', 'recorded', 'uninvited', 'unsubscribed', 'late', 'rerecord']) {
      const res = await api('POST', `/v1/collections/${id}/users`, { email: `${name}@example.com`, first_name: name });
      people[name] = res.json();
    }
    const ids = (...names: string[]) => names.map((name) => people[name]!.id);
    const record = async (name: string) => {
      const res = await a.request({
        method: 'PUT',
        url: `/v1/collections/${id}/users/${people[name]!.id}/recording`,
        key,
        headers: { 'content-type': 'audio/wav' },
        payload: fs.readFileSync(speechWav()),
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await record('recorded');
    await record('rerecord');
    expect(
      (
        await api('POST', `/v1/collections/${id}/invitations`, {
          user_ids: ids('waiting', 'recorded', 'unsubscribed', 'rerecord'),
        })
      ).statusCode,
    ).toBe(202);
    await new MessageSender(a.deps, 'worker-a').kick();
    const invitation = smtp.received.find((mail) => mail.to.includes('unsubscribed@example.com'));
    const unsubscribe = (invitation!.parsed.headers.get('list') as { unsubscribe: { url: string } }).unsubscribe.url;
    expect((await a.request({ method: 'POST', url: new URL(unsubscribe).pathname })).statusCode).toBe(200);
    await api('POST', `/v1/collections/${id}/users/${people.rerecord!.id}/review`, {
      decision: 'request_rerecord',
      note: 'Louder',
    });

    // 2027-02-21: eight days before the deadline, no reminder yet.
    clock.set('2027-02-21T09:00:00.000Z');
    await bothWorkersRun();
    expect(remindersTo('waiting@example.com')).toHaveLength(0);

    // 2027-02-22: seven days before. `late` is invited that day: no reminder for them today.
    clock.set('2027-02-22T06:00:00.000Z');
    await api('POST', `/v1/collections/${id}/invitations`, { user_ids: ids('late') });
    clock.set('2027-02-22T09:00:00.000Z');
    await bothWorkersRun();
    await bothWorkersRun();
    expect(remindersTo('waiting@example.com')).toHaveLength(1);
    expect(remindersTo('rerecord@example.com')).toHaveLength(1);
    for (const name of ['recorded', 'uninvited', 'unsubscribed', 'late'])
      expect(remindersTo(`${name}@example.com`), name).toHaveLength(0);
    expect(remindersTo('waiting@example.com')[0]!.parsed.text).toContain(
      'We have not received your recording for Convocation yet.',
    );

    // Later that week: nothing new until the next reminder day.
    clock.set('2027-02-25T09:00:00.000Z');
    await bothWorkersRun();
    expect(remindersTo('waiting@example.com')).toHaveLength(1);

    // 2027-02-27: two days before; `late` was invited before this day and gets one now.
    clock.set('2027-02-27T09:00:00.000Z');
    await bothWorkersRun();
    await bothWorkersRun();
    expect(remindersTo('waiting@example.com')).toHaveLength(2);
    expect(remindersTo('late@example.com')).toHaveLength(1);

    // After the deadline: none.
    clock.set('2027-03-02T09:00:00.000Z');
    await bothWorkersRun();
    expect(remindersTo('waiting@example.com')).toHaveLength(2);
  });
});

describe('dueReminderDay', () => {
  it('is the latest reminder day not after today, until the deadline', () => {
    expect(dueReminderDay('2027-03-01', [7, 2], '2027-02-21')).toBeNull();
    expect(dueReminderDay('2027-03-01', [7, 2], '2027-02-22')).toBe('2027-02-22');
    expect(dueReminderDay('2027-03-01', [7, 2], '2027-02-26')).toBe('2027-02-22');
    expect(dueReminderDay('2027-03-01', [2, 7], '2027-02-28')).toBe('2027-02-27');
    expect(dueReminderDay('2027-03-01', [7, 2], '2027-03-01')).toBe('2027-02-27');
    expect(dueReminderDay('2027-03-01', [7, 2], '2027-03-02')).toBeNull();
    expect(dueReminderDay('2028-03-01', [1], '2028-02-29')).toBe('2028-02-29');
  });
});
