/**
 * The mailer adapters: the log mailer (and its development mailbox) and the SMTP mailer against
 * a real SMTP server on loopback (smtp-server, the library nodemailer's authors test with),
 * also end to end through the dashboard's sign-in form. Plus the dashboard's settings.
 */
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { createLogMailer, createSmtpMailer } from '../src/integrations/mailer.js';
import { createTestApp } from './helpers/app.js';
import { askForLink, newBrowser } from './helpers/dashboard.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

let server: SMTPServer;
let smtpUrl: string;
const received: Received[] = [];

beforeAll(async () => {
  server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Quoted-printable soft line breaks undone, so long links can be searched for. */
const unfold = (data: string) => data.replace(/=\r\n/g, '').replace(/=3D/g, '=');

describe('SMTP mailer', () => {
  it('delivers a message through the relay', async () => {
    const mailer = createSmtpMailer({ url: smtpUrl, from: 'voicename <no-reply@voicename.test>' });
    await mailer.send({ to: 'ada@example.com', subject: 'Hello', text: 'Line one\nhttps://voicename.test/x' });
    await mailer.close();
    const message = received.at(-1) as Received;
    expect(message.from).toBe('no-reply@voicename.test');
    expect(message.to).toEqual(['ada@example.com']);
    expect(message.data).toContain('Subject: Hello');
    expect(unfold(message.data)).toContain('https://voicename.test/x');
    expect(mailer.lastMessageTo('ada@example.com')).toBeUndefined();
  });

  it('sends the dashboard sign-in link by SMTP when SMTP_URL is set, with no development mailbox', async () => {
    const t = await createTestApp({ env: { SMTP_URL: smtpUrl, MAIL_FROM: 'Dashboard <login@voicename.test>' } });
    try {
      const before = received.length;
      const res = await askForLink(t, newBrowser(), 'grace@example.com');
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('development mailbox');
      expect(received).toHaveLength(before + 1);
      const message = received.at(-1) as Received;
      expect(message.from).toBe('login@voicename.test');
      expect(message.to).toEqual(['grace@example.com']);
      expect(unfold(message.data)).toMatch(/http:\/\/localhost:3000\/dashboard\/sign-in\/[A-Za-z0-9_-]{43}/);
    } finally {
      await t.close();
    }
  });

  it('answers 503 with the sign-in page when the relay is down', async () => {
    const t = await createTestApp({ env: { SMTP_URL: 'smtp://127.0.0.1:9', LOG_LEVEL: 'silent' } });
    try {
      const res = await askForLink(t, newBrowser(), 'down@example.com');
      expect(res.statusCode).toBe(503);
      expect(res.body).toContain('could not be sent');
    } finally {
      await t.close();
    }
  });
});

describe('log mailer', () => {
  const silent = pino({ level: 'silent' });

  it('keeps the last message per address (case-insensitive) outside production', async () => {
    const mailer = createLogMailer(silent, { keepMessages: true });
    await mailer.send({ to: 'Ada@Example.com', subject: 'first', text: '1' });
    await mailer.send({ to: 'ada@example.com', subject: 'second', text: '2' });
    expect(mailer.lastMessageTo('ADA@example.com')?.subject).toBe('second');
    expect(mailer.lastMessageTo('other@example.com')).toBeUndefined();
  });

  it('keeps nothing in production', async () => {
    const mailer = createLogMailer(silent, { keepMessages: false });
    await mailer.send({ to: 'ada@example.com', subject: 's', text: 't' });
    expect(mailer.lastMessageTo('ada@example.com')).toBeUndefined();
  });

  it('keeps at most 1000 addresses, forgetting the oldest', async () => {
    const mailer = createLogMailer(silent, { keepMessages: true });
    for (let i = 0; i <= 1000; i++) await mailer.send({ to: `u${i}@example.com`, subject: 's', text: 't' });
    expect(mailer.lastMessageTo('u0@example.com')).toBeUndefined();
    expect(mailer.lastMessageTo('u1@example.com')).toBeDefined();
    expect(mailer.lastMessageTo('u1000@example.com')).toBeDefined();
  });

  it('writes the message, link included, to the log', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    await createLogMailer(logger, { keepMessages: false }).send({
      to: 'a@example.com',
      subject: 'Link',
      text: 'https://x.test/dashboard/sign-in/abc',
    });
    expect(lines.join('')).toContain('https://x.test/dashboard/sign-in/abc');
  });
});

describe('dashboard settings', () => {
  const load = (env: Record<string, string>) => loadConfig({ NODE_ENV: 'test', ...env });

  it('parses SESSION_TTL durations within 5 minutes and 90 days', () => {
    expect(load({}).dashboard.sessionTtlMs).toBe(7 * 86_400_000);
    expect(load({ SESSION_TTL: '12h' }).dashboard.sessionTtlMs).toBe(12 * 3_600_000);
    expect(load({ SESSION_TTL: '300' }).dashboard.sessionTtlMs).toBe(300_000);
    expect(load({ SESSION_TTL: '5m' }).dashboard.sessionTtlMs).toBe(300_000);
    expect(load({ SESSION_TTL: '90d' }).dashboard.sessionTtlMs).toBe(90 * 86_400_000);
    for (const bad of ['299', '4m', '91d', '1w', 'soon', '-5m']) {
      expect(() => load({ SESSION_TTL: bad }), bad).toThrow(ConfigError);
    }
  });

  it('validates SMTP_URL and MAIL_FROM, and derives the default sender and Secure cookies from BASE_URL', () => {
    expect(() => load({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL/);
    expect(load({ SMTP_URL: 'smtps://u:p@mail.example.com:465' }).dashboard.smtpUrl).toBe('smtps://u:p@mail.example.com:465');
    expect(() => load({ MAIL_FROM: 'no address' })).toThrow(/MAIL_FROM/);
    const https = load({ BASE_URL: 'https://names.example.com' });
    expect(https.dashboard.mailFrom).toBe('voicename <no-reply@names.example.com>');
    expect(https.dashboard.secureCookies).toBe(true);
    expect(load({}).dashboard.secureCookies).toBe(false);
  });
});
