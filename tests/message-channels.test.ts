/**
 * A second message channel is one adapter: a fake chat channel registered beside e-mail, chosen
 * for one collection, receives that collection's invitations through the same outbox, throttle,
 * retries (a temporary failure retried, a permanent one recorded as `invitation.failed`) and
 * unsubscribe rules as e-mail, while other collections keep getting e-mail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageSender } from '../src/features/invitations/sender.js';
import type { ChannelMessage } from '../src/integrations/channels/channel.js';
import type { ChannelChoice } from '../src/integrations/channels/registry.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { createFakeChannel } from './helpers/fake-channel.js';

const chat = createFakeChannel('chat');
/** Collections whose people are reached on the chat channel; everyone else by e-mail. */
const onChat = new Set<string>();
const choose: ChannelChoice = ({ collectionId }) => (onChat.has(collectionId) ? 'chat' : 'email');
const clock = new ManualClock('2027-04-01T09:00:00.000Z');
let t: TestApp;
let key: string;
let sender: MessageSender;

beforeAll(async () => {
  t = await createTestApp({ clock, env: { MAIL_RATE_PER_MINUTE: '0' }, overrides: { channels: { extra: [chat], choose } } });
  ({ key } = await t.newAccount());
  sender = new MessageSender(t.deps, 'channel-sender');
});
afterAll(() => t.close());

interface Person {
  id: string;
  email: string;
  record_url: string;
  invitation: { status: string | null; error: string | null; unsubscribed_at: string | null };
}

const api = (method: 'GET' | 'POST', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

async function collectionWith(people: number, channel: 'chat' | 'email' = 'chat') {
  const created = await api('POST', '/v1/collections', { name: 'Choir 2027', language: 'de' });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json<{ id: string }>().id;
  if (channel === 'chat') onChat.add(id);
  const users: Person[] = [];
  for (let i = 0; i < people; i++) {
    const res = await api('POST', `/v1/collections/${id}/users`, {
      email: `c${i}-${id.slice(0, 8)}@example.com`,
      first_name: `Jürgen${i}`,
      last_name: 'Weiß',
    });
    expect(res.statusCode, res.body).toBe(201);
    users.push(res.json<Person>());
  }
  return { id, users };
}

const invite = (collectionId: string, json: unknown) => api('POST', `/v1/collections/${collectionId}/invitations`, json);
const person = async (collectionId: string, userId: string) =>
  (await api('GET', `/v1/collections/${collectionId}/users/${userId}`)).json<Person>();
const chatTo = (who: Person) => chat.to(`@${who.email}`);
const eventsOf = async (type: string) =>
  (await t.deps.db.kysely.selectFrom('events').select('data').where('type', '=', type).execute()).map(
    (event) => JSON.parse(event.data) as Record<string, unknown>,
  );
const personData = (message: ChannelMessage | undefined) => {
  if (!message || message.kind === 'sign_in' || message.kind === 'member_invitation') throw new Error('not a person message');
  return message.data;
};

describe('a second channel', () => {
  it("carries the chosen collection's invitations, channel-neutral, while other collections keep e-mail", async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    const other = await collectionWith(1, 'email');
    expect((await invite(id, { user_ids: [a.id] })).statusCode).toBe(202);
    expect((await invite(other.id, { user_ids: [other.users[0]!.id] })).statusCode).toBe(202);
    const queued = await t.deps.db.kysely.selectFrom('mail_messages').select('channel').where('user_id', '=', a.id).execute();
    expect(queued).toEqual([{ channel: 'chat' }]);

    await sender.kick();
    const [message] = chatTo(a);
    expect(message).toMatchObject({ kind: 'invitation', locale: 'de' });
    expect(personData(message)).toMatchObject({
      person: { first_name: 'Jürgen0' },
      collection: 'Choir 2027',
      recordUrl: a.record_url,
      unsubscribeUrl: expect.stringMatching(/^http:\/\/localhost:3000\/u\/[A-Za-z0-9_-]{32}$/),
    });
    expect(t.deps.mailer.lastMessageTo(a.email), 'no e-mail for a person on chat').toBeUndefined();
    expect(t.deps.mailer.lastMessageTo(other.users[0]!.email)?.subject).toContain('Choir 2027');
    expect(chatTo(other.users[0]!)).toHaveLength(0);
    expect((await person(id, a.id)).invitation).toMatchObject({ status: 'sent', error: null });
    expect(await eventsOf('invitation.sent')).toContainEqual(expect.objectContaining({ user_id: a.id, kind: 'invitation' }));
  });

  it('retries a temporary failure with the same backoff as e-mail', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    chat.fail(`@${a.email}`, { temporary: true, times: 1 });
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    expect(chatTo(a)).toHaveLength(0);
    expect((await person(id, a.id)).invitation.status).toBe('queued');
    await sender.kick();
    expect(chatTo(a), 'not before its retry time').toHaveLength(0);
    clock.advance(61_000);
    await sender.kick();
    expect(chatTo(a)).toHaveLength(1);
    expect((await person(id, a.id)).invitation.status).toBe('sent');
  });

  it('records a permanent failure at once as invitation.failed, with the reason on the person', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    chat.fail(`@${a.email}`, { temporary: false });
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    expect((await person(id, a.id)).invitation).toMatchObject({ status: 'failed', error: 'no such chat handle' });
    expect(await eventsOf('invitation.failed')).toContainEqual(
      expect.objectContaining({ user_id: a.id, kind: 'invitation', error: 'no such chat handle' }),
    );
  });

  it('honours the unsubscribe link it carried: queued messages are dropped and no more are queued', async () => {
    const { id, users } = await collectionWith(1);
    const [a] = users as [Person];
    await invite(id, { user_ids: [a.id] });
    await sender.kick();
    const url = new URL(personData(chatTo(a)[0]).unsubscribeUrl);
    clock.advance(25 * 3600_000);
    await invite(id, { user_ids: [a.id] });
    const oneClick = await t.request({
      method: 'POST',
      url: url.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    await sender.kick();
    expect(chatTo(a)).toHaveLength(1);
    expect((await invite(id, { user_ids: [a.id], resend: true })).json()).toMatchObject({
      queued: 0,
      skipped: { unsubscribed: 1 },
    });
  });

  it('is held to MAIL_RATE_PER_MINUTE like e-mail', async () => {
    const throttled = await createTestApp({
      clock,
      database: t.database,
      env: { MAIL_RATE_PER_MINUTE: '2' },
      overrides: { channels: { extra: [chat], choose } },
    });
    try {
      clock.advance(61_000);
      const throttledSender = new MessageSender(throttled.deps, 'channel-throttled', {
        now: () => 0,
        sleep: async () => undefined,
      });
      const { id, users } = await collectionWith(5);
      await invite(id, { user_ids: users.map((u) => u.id) });
      await throttledSender.kick();
      expect(users.filter((u) => chatTo(u).length > 0)).toHaveLength(2);
      clock.advance(61_000);
      await throttledSender.kick();
      expect(users.filter((u) => chatTo(u).length > 0)).toHaveLength(4);
    } finally {
      await throttled.app.close();
      await throttled.deps.notifications.close();
      await throttled.deps.rateLimits.close();
      await throttled.deps.cards.renderer.close();
    }
  });

  it('fails a message whose channel is no longer configured, instead of retrying it forever', async () => {
    const plain = await createTestApp({ clock, database: t.database, env: { MAIL_RATE_PER_MINUTE: '0' } });
    try {
      const { id, users } = await collectionWith(1);
      const [a] = users as [Person];
      await invite(id, { user_ids: [a.id] });
      await new MessageSender(plain.deps, 'no-chat-here').kick();
      expect((await person(id, a.id)).invitation).toMatchObject({
        status: 'failed',
        error: 'No message channel "chat" is configured.',
      });
    } finally {
      await plain.app.close();
      await plain.deps.notifications.close();
      await plain.deps.rateLimits.close();
      await plain.deps.cards.renderer.close();
    }
  });
});
