import { describe, expect, it } from 'vitest';
import type { Mailer, MailMessage } from '../../mailer.js';
import { type ChannelMessage, MessageFailure } from '../channel.js';
import { createChannelRegistry } from '../registry.js';
import { createEmailChannel } from './channel.js';

/** A mailer that keeps what it is given, or throws what it is told to. */
function fakeMailer(error?: unknown) {
  const sent: MailMessage[] = [];
  const mailer: Mailer = {
    kind: 'log',
    keepsMessages: false,
    async send(message) {
      if (error !== undefined) throw error;
      sent.push(message);
    },
    lastMessageTo: () => undefined,
    async close() {},
  };
  return { mailer, sent };
}

const invitation: ChannelMessage = {
  kind: 'invitation',
  locale: 'en',
  data: {
    person: { first_name: 'Ada', display_name: 'Ada Lovelace' },
    collection: 'Graduation 2027',
    organisation: null,
    deadline: null,
    privacyNote: null,
    logoUrl: null,
    brandColor: null,
    template: null,
    note: null,
    recordUrl: 'https://voicename.test/r/abc',
    unsubscribeUrl: 'https://voicename.test/u/xyz',
    sender: { name: 'Graduation Office', replyTo: null },
  },
};

describe('the e-mail channel', () => {
  it('addresses a contact by e-mail and renders a person message with its sender and one-click unsubscribe', async () => {
    const { mailer, sent } = fakeMailer();
    const channel = createEmailChannel(mailer);
    expect(channel.addressOf({ email: 'ada@example.com' })).toBe('ada@example.com');
    await channel.send('ada@example.com', invitation);
    expect(sent[0]).toMatchObject({
      to: 'ada@example.com',
      subject: 'Graduation 2027: record how your name is said',
      fromName: 'Graduation Office',
      headers: { 'List-Unsubscribe': '<https://voicename.test/u/xyz>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    expect(sent[0]).not.toHaveProperty('replyTo');
    expect(sent[0]?.html).toContain('href="https://voicename.test/r/abc"');
  });

  it('sends the sign-in link as plain text, without unsubscribe headers', async () => {
    const { mailer, sent } = fakeMailer();
    await createEmailChannel(mailer).send('ada@example.com', {
      kind: 'sign_in',
      locale: 'en',
      data: { link: 'https://voicename.test/dashboard/sign-in/t' },
    });
    expect(sent).toEqual([
      {
        to: 'ada@example.com',
        subject: 'Your voicename sign-in link',
        text: expect.stringContaining(
          '\n\nhttps://voicename.test/dashboard/sign-in/t\n\nThe link works once, within 15 minutes.',
        ),
      },
    ]);
  });

  it.each([
    ['a 4xx reply', true, { responseCode: 451, response: '451 4.7.1 Try again later' }],
    ['a dropped connection', true, Object.assign(new Error('Connection closed'), { code: 'ECONNECTION' })],
    ['a 5xx reply', false, { responseCode: 550, response: '550 5.1.1 No such\r\nmailbox' }],
  ])('classifies %s as temporary: %s', async (_name, temporary, error) => {
    const { mailer } = fakeMailer(error);
    const failure = await createEmailChannel(mailer)
      .send('ada@example.com', invitation)
      .catch((caught: unknown) => caught);
    expect(failure).toBeInstanceOf(MessageFailure);
    expect((failure as MessageFailure).temporary).toBe(temporary);
    expect((failure as MessageFailure).reason).not.toMatch(/[\r\n]/);
  });
});

describe('the channel registry', () => {
  it('looks channels up by name, chooses e-mail for everyone by default and refuses two of one name', () => {
    const email = createEmailChannel(fakeMailer().mailer);
    const channels = createChannelRegistry([email]);
    expect(channels.get('email')).toBe(email);
    expect(channels.has('sms')).toBe(false);
    expect(() => channels.get('sms')).toThrow(/No message channel "sms"/);
    expect(channels.channelFor({ collectionId: 'c', userId: 'u' })).toBe('email');
    expect(() => createChannelRegistry([email, email])).toThrow(/Two message channels are named "email"/);
  });
});
