/**
 * Webhook secrets and signatures.
 * - `X-Service-Signature` (spec): lowercase hex HMAC-SHA256 of the exact body bytes, keyed with
 *   the UTF-8 bytes of the whole secret string (`whsec_…` included), GitHub/Stripe style.
 * - Standard Webhooks (`webhook-signature: v1,<base64>`): HMAC-SHA256 over `id.timestamp.body`,
 *   keyed with the base64-decoded part of the secret after `whsec_`.
 */
import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

/** The Standard Webhooks key: base64-decoded bytes after the `whsec_` prefix. */
export function standardKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * Both HMAC keys of a secret, made once: every delivery to a webhook signs with the same secret,
 * and decoding it and building the key objects cost more than the HMAC of a small body. At most
 * `KEY_CACHE_SIZE` secrets are kept, the oldest dropped first.
 */
const KEY_CACHE_SIZE = 1000;
const keys = new Map<string, { service: KeyObject; standard: KeyObject }>();
function keysOf(secret: string) {
  let found = keys.get(secret);
  if (!found) {
    if (keys.size >= KEY_CACHE_SIZE) keys.delete(keys.keys().next().value as string);
    found = { service: createSecretKey(Buffer.from(secret, 'utf8')), standard: createSecretKey(standardKey(secret)) };
    keys.set(secret, found);
  }
  return found;
}

export const serviceSignature = (secret: string, body: string): string =>
  createHmac('sha256', keysOf(secret).service).update(body, 'utf8').digest('hex');

/** One `v1,<base64>` entry for `webhook-signature`. */
export const standardSignature = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  `v1,${createHmac('sha256', keysOf(secret).standard).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64')}`;

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
