/**
 * Verifies a voicename webhook delivery on the receiving side. Self-contained (node:crypto
 * only) so it can also be copied into any Node receiver.
 *
 *   import { verifyWebhook } from '@voicename/sdk';
 *   const { event } = verifyWebhook({ secret: process.env.VOICENAME_WEBHOOK_SECRET, headers: req.headers, body: rawBody });
 *
 * Pass the raw body bytes exactly as received (never re-serialised JSON). Checks:
 * - Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`) when
 *   present: a `v1,` signature over `id.timestamp.body` keyed with the base64-decoded part of
 *   the secret, and the timestamp within `toleranceSeconds` (replay protection);
 * - `X-Service-Signature` (or `X-Service-Signature-Next` during a secret rotation) when present:
 *   hex HMAC-SHA256 of the body keyed with the secret's UTF-8 bytes.
 * At least one scheme must be present; every present scheme must verify. Throws
 * `WebhookVerificationError`; returns the parsed event.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The webhook secret (`whsec_…`); several during a rotation. */
  secret: string | string[];
  headers: HeaderBag;
  body: string | Uint8Array;
  /** Largest accepted clock difference for `webhook-timestamp`, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Refuse deliveries without the Standard Webhooks headers (always get replay protection). */
  requireTimestamp?: boolean;
  now?: Date;
}

export interface VerifiedWebhook {
  /** `webhook-id`: the same on every retry of one delivery; use it to drop duplicates. */
  id: string | null;
  timestamp: number | null;
  event: { event: string; timestamp: string; data: Record<string, unknown> };
}

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(bag).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : bag[key];
  return Array.isArray(value) ? value[0] : value;
}

function equalBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const standardKey = (secret: string) => Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

export function verifyWebhook(options: VerifyWebhookOptions): VerifiedWebhook {
  const secrets = (Array.isArray(options.secret) ? options.secret : [options.secret]).filter((s) => typeof s === 'string' && s);
  if (secrets.length === 0) throw new WebhookVerificationError('No webhook secret configured.');
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : Buffer.from(options.body);
  const id = header(options.headers, 'webhook-id');
  const timestampHeader = header(options.headers, 'webhook-timestamp');
  const signatureHeader = header(options.headers, 'webhook-signature');
  const serviceHeaders = [header(options.headers, 'x-service-signature'), header(options.headers, 'x-service-signature-next')];
  const hasStandard = id !== undefined || timestampHeader !== undefined || signatureHeader !== undefined;
  const hasService = serviceHeaders.some((h) => h !== undefined);
  if (!hasStandard && !hasService) throw new WebhookVerificationError('No signature headers.');
  if (!hasStandard && options.requireTimestamp) throw new WebhookVerificationError('Missing webhook-timestamp headers.');

  let timestamp: number | null = null;
  if (hasStandard) {
    if (!id || !timestampHeader || !signatureHeader) throw new WebhookVerificationError('Incomplete webhook-* headers.');
    if (!/^\d{1,12}$/.test(timestampHeader)) throw new WebhookVerificationError('Invalid webhook-timestamp.');
    timestamp = Number(timestampHeader);
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    const tolerance = options.toleranceSeconds ?? 300;
    if (Math.abs(now - timestamp) > tolerance) throw new WebhookVerificationError('webhook-timestamp is too old or too new.');
    const signed = Buffer.concat([Buffer.from(`${id}.${timestampHeader}.`, 'utf8'), body]);
    const expected = secrets.map((s) => createHmac('sha256', standardKey(s)).update(signed).digest());
    const given = signatureHeader
      .split(' ')
      .filter((part) => part.startsWith('v1,'))
      .map((part) => Buffer.from(part.slice(3), 'base64'));
    if (!given.some((sig) => expected.some((exp) => equalBytes(sig, exp)))) {
      throw new WebhookVerificationError('No matching webhook-signature.');
    }
  }

  if (hasService) {
    const expected = secrets.map((s) => createHmac('sha256', Buffer.from(s, 'utf8')).update(body).digest());
    const given = serviceHeaders
      .filter((h): h is string => h !== undefined && /^[0-9a-f]{64}$/.test(h))
      .map((h) => Buffer.from(h, 'hex'));
    if (!given.some((sig) => expected.some((exp) => equalBytes(sig, exp)))) {
      throw new WebhookVerificationError('No matching X-Service-Signature.');
    }
  }

  let event: VerifiedWebhook['event'];
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new WebhookVerificationError('Body is not JSON.');
  }
  return { id: id ?? null, timestamp, event };
}
