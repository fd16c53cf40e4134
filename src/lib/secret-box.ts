/**
 * Secrets the service must read back later (an identity provider's client secret, a webhook's
 * mutual-TLS client key), sealed with AES-256-GCM before they reach the database, so a copy of the
 * database alone reveals none of them.
 * Source of the key: SSO_ENCRYPTION_KEY (base64, 32 bytes), else a key generated once in
 * DATA_DIR/keys/, as ENTITY_SIGNING_KEY is. Sealed text is `v1.<iv>.<tag>.<ciphertext>` (base64url),
 * and `purpose` is bound as additional data, so a value sealed for one row cannot be moved to another.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SecretBox {
  seal(plaintext: string, purpose: string): string;
  /** Throws when the text was not sealed with this key and purpose. */
  open(sealed: string, purpose: string): string;
}

const KEY_BYTES = 32;
const IV_BYTES = 12;

function loadKey(config: { ssoEncryptionKey: string | null; dataDir: string }): Buffer {
  if (config.ssoEncryptionKey) return Buffer.from(config.ssoEncryptionKey, 'base64');
  const file = path.join(config.dataDir, 'keys', 'sso-encryption-key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    try {
      // `wx`: when two processes race, the first file wins and both read it back.
      fs.writeFileSync(file, randomBytes(KEY_BYTES).toString('base64'), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a 32-byte key in base64`);
  return key;
}

const cache = new Map<string, SecretBox>();

export function loadSecretBox(config: { ssoEncryptionKey: string | null; dataDir: string }): SecretBox {
  const cacheKey = config.ssoEncryptionKey ?? `dir:${config.dataDir}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const key = loadKey(config);
  const box: SecretBox = {
    seal(plaintext, purpose) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(purpose));
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), data]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, purpose) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        .setAAD(Buffer.from(purpose))
        .setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
  cache.set(cacheKey, box);
  return box;
}
