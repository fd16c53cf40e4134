/**
 * Outgoing e-mail. Two adapters behind one interface, chosen by config:
 * - `log` (default): writes each message to the server log. Outside production it also keeps
 *   the last message per address in memory, so a local developer can open it from the
 *   dashboard's development mailbox instead of a real inbox.
 * - `smtp` (when SMTP_URL is set): sends through the relay with nodemailer.
 */
import { createRequire } from 'node:module';
import type { Logger } from 'pino';

/** nodemailer is loaded only when SMTP_URL is set: its resident memory is paid only where used (docs/performance.md). */
const loadNodemailer = () => createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Display name put before the configured From address (the address itself never changes). */
  fromName?: string;
  replyTo?: string;
  /** Extra headers, e.g. `List-Unsubscribe`. */
  headers?: Record<string, string>;
}

/**
 * An SMTP failure that another attempt may cure: a 4xx reply (greylisting, a full queue) or a
 * connection that failed or timed out. 5xx replies (no such mailbox, refused) are permanent.
 */
export function isTemporaryMailFailure(error: unknown): boolean {
  const { responseCode, code } = (error ?? {}) as { responseCode?: number; code?: string };
  if (typeof responseCode === 'number') return responseCode >= 400 && responseCode < 500;
  return code === undefined || ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ECONNREFUSED', 'ECONNRESET'].includes(code);
}

export interface StoredMail extends MailMessage {
  sent_at: string;
}

export interface Mailer {
  readonly kind: 'log' | 'smtp';
  send(message: MailMessage): Promise<void>;
  /** The last message sent to `address`; only the development (log, non-production) mailer keeps them. */
  lastMessageTo(address: string): StoredMail | undefined;
  /** True when `lastMessageTo` can answer (log mailer outside production). */
  readonly keepsMessages: boolean;
  close(): Promise<void>;
}

/** Keeps at most this many addresses, so a long-running development server does not grow without bound. */
const MAILBOX_ADDRESSES = 1000;

export function createLogMailer(logger: Logger, options: { keepMessages: boolean; now?: () => Date }): Mailer {
  const mailbox = new Map<string, StoredMail>();
  const now = options.now ?? (() => new Date());
  return {
    kind: 'log',
    keepsMessages: options.keepMessages,
    async send(message) {
      logger.info(
        { mail: { to: message.to, subject: message.subject } },
        `mail to ${message.to}: ${message.subject}\n${message.text}`,
      );
      if (!options.keepMessages) return;
      const key = message.to.toLowerCase();
      mailbox.delete(key); // re-insert so the Map's order is least-recently-sent first
      mailbox.set(key, { ...message, sent_at: now().toISOString() });
      if (mailbox.size > MAILBOX_ADDRESSES) mailbox.delete(mailbox.keys().next().value as string);
    },
    lastMessageTo: (address) => (options.keepMessages ? mailbox.get(address.toLowerCase()) : undefined),
    async close() {},
  };
}

export function createSmtpMailer(options: { url: string; from: string; timeoutMs?: number }): Mailer {
  const timeout = options.timeoutMs ?? 15_000;
  // Settings in the URL's query (e.g. ?tls.rejectUnauthorized=false) win over these defaults.
  // Pooled: a batch of invitations reuses a few connections instead of one handshake per message.
  const nodemailer = loadNodemailer();
  const transport = nodemailer.createTransport({
    url: options.url,
    pool: true,
    maxConnections: 3,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    kind: 'smtp',
    keepsMessages: false,
    async send({ fromName, ...message }) {
      const from = fromName ? { name: fromName, address: addressOf(options.from) } : options.from;
      await transport.sendMail({ ...message, from });
    },
    lastMessageTo: () => undefined,
    async close() {
      transport.close();
    },
  };
}

/** The bare address of `Name <address>` (or of a bare address). */
const addressOf = (from: string) => /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();

export function createMailerFromConfig(
  config: { env: string; dashboard: { smtpUrl: string | null; mailFrom: string } },
  logger: Logger,
): Mailer {
  if (config.dashboard.smtpUrl) return createSmtpMailer({ url: config.dashboard.smtpUrl, from: config.dashboard.mailFrom });
  return createLogMailer(logger.child({ component: 'mailer' }), { keepMessages: config.env !== 'production' });
}
