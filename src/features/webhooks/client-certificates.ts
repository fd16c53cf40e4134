/**
 * Mutual TLS per webhook: the client certificate and key a customer gives us are checked (they
 * parse, the key is the certificate's, the certificate is valid now), the key is sealed with the
 * secret box (SSO_ENCRYPTION_KEY, `lib/secret-box.ts`) before it reaches the database, and both
 * are opened again only to send. They are write-only in the API: a webhook shows
 * `has_tls_client_certificate`, never the certificate or the key.
 */
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { AppError } from '../../errors.js';
import { loadSecretBox } from '../../lib/secret-box.js';
import type { WebhookRow } from './repo.js';

export interface SecretBoxConfig {
  ssoEncryptionKey: string | null;
  dataDir: string;
}

/** The purpose the key is sealed for: a sealed key moved to another webhook's row does not open. */
const keyPurpose = (webhookId: string) => `webhook-tls-client-key:${webhookId}`;

const invalid = (param: string, message: string) => new AppError('parameter_invalid', message, { param, status: 400 });

/**
 * Checks a certificate and key given together (both or neither, or both null to remove) and
 * returns the columns to store, or undefined when neither was given.
 */
export function clientCertificateColumns(
  input: { tls_client_certificate?: string | null; tls_client_key?: string | null },
  context: { webhookId: string; url: string; now: Date; config: SecretBoxConfig },
): Pick<WebhookRow, 'tls_client_certificate' | 'tls_client_key_sealed'> | undefined {
  const certificate = input.tls_client_certificate;
  const key = input.tls_client_key;
  if (certificate === undefined && key === undefined) return undefined;
  if (certificate === null && key === null) return { tls_client_certificate: null, tls_client_key_sealed: null };
  if (typeof certificate !== 'string') {
    throw invalid('tls_client_certificate', 'Give the client certificate together with its key (or both null to remove them).');
  }
  if (typeof key !== 'string') {
    throw invalid('tls_client_key', 'Give the client key together with its certificate (or both null to remove them).');
  }
  if (!context.url.startsWith('https:')) {
    throw invalid('tls_client_certificate', 'A client certificate is used for https URLs only.');
  }
  let parsed: X509Certificate;
  try {
    parsed = new X509Certificate(certificate);
  } catch {
    throw invalid('tls_client_certificate', 'The client certificate is not a PEM X.509 certificate.');
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw invalid('tls_client_key', 'The client key is not an unencrypted PEM private key.');
  }
  const publicOfKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  if (!parsed.publicKey.export({ type: 'spki', format: 'der' }).equals(publicOfKey)) {
    throw invalid('tls_client_key', 'The client key does not belong to the client certificate.');
  }
  const now = context.now.getTime();
  if (Date.parse(parsed.validTo) <= now) {
    throw invalid('tls_client_certificate', `The client certificate expired on ${new Date(parsed.validTo).toISOString()}.`);
  }
  if (Date.parse(parsed.validFrom) > now) {
    throw invalid(
      'tls_client_certificate',
      `The client certificate is valid only from ${new Date(parsed.validFrom).toISOString()}.`,
    );
  }
  return {
    tls_client_certificate: certificate,
    tls_client_key_sealed: loadSecretBox(context.config).seal(key, keyPurpose(context.webhookId)),
  };
}

/** The certificate and key to present when sending to this webhook (https only), or undefined. */
export function clientTlsOf(
  row: Pick<WebhookRow, 'id' | 'url' | 'tls_client_certificate' | 'tls_client_key_sealed'>,
  config: SecretBoxConfig,
): { cert: string; key: string } | undefined {
  if (row.tls_client_certificate === null || row.tls_client_key_sealed === null || !row.url.startsWith('https:'))
    return undefined;
  return { cert: row.tls_client_certificate, key: loadSecretBox(config).open(row.tls_client_key_sealed, keyPurpose(row.id)) };
}
