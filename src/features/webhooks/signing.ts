/**
 * Webhook secrets and signatures.
 * - `X-Service-Signature` (spec): lowercase hex HMAC-SHA256 of the exact body bytes, keyed with
 *   the UTF-8 bytes of the whole secret string (`whsec_…` included), GitHub/Stripe style.
 * - Standard Webhooks (`webhook-signature: v1,<base64>`): HMAC-SHA256 over `id.timestamp.body`,
 *   keyed with the base64-decoded part of the secret after `whsec_`.
 */
import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

/** The Standard Webhooks key: base64-decoded bytes after the `whsec_` prefix. */
export function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

export const serviceSignature = (secret: string, body: string): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8')).update(body, 'utf8').digest('hex');

/** One `v1,<base64>` entry for `webhook-signature`. */
export const standardSignature = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;

export interface SigningSecrets {
  current: string;
  /** Set during the 24 h after a rotation. */
  previous: string | null;
}

/**
 * Headers for one attempt. During a rotation overlap `X-Service-Signature` keeps the previous
 * secret (receivers not yet updated keep working), `X-Service-Signature-Next` carries the new
 * one, and `webhook-signature` carries both `v1,` entries (the Standard Webhooks way).
 */
export function signatureHeaders(
  secrets: SigningSecrets,
  input: { id: string; timestampSeconds: number; body: string },
): Record<string, string> {
  const { id, timestampSeconds, body } = input;
  const signers = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  return {
    'x-service-signature': serviceSignature(secrets.previous ?? secrets.current, body),
    ...(secrets.previous ? { 'x-service-signature-next': serviceSignature(secrets.current, body) } : {}),
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signers.map((secret) => standardSignature(secret, id, timestampSeconds, body)).join(' '),
  };
}
