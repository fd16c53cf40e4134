/**
 * The server's Ed25519 key for entity callbacks. Its public half is published in the discovery
 * document so agents without an account can verify `entity.published` notifications. The same
 * key (through HKDF) derives each receipt's deletion token from the payment intent id, so an
 * identical retry can return the same receipt while only the token's hash is ever stored, and
 * the key that binds MPP payment challenges to the request they were issued for.
 * Source: ENTITY_SIGNING_KEY (base64 PKCS#8 DER), else a key generated once in DATA_DIR/keys/.
 */
import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, hkdfSync, type KeyObject, sign } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config.js';
import { sha256Hex } from '../../lib/secrets.js';

export interface EntityKeys {
  keyId: string;
  /** JWK of the public key (`kty: OKP`, `crv: Ed25519`). */
  publicJwk: { kty: string; crv: string; x: string; kid: string; use: string; alg: string };
  /** Base64url Ed25519 signature of `data`. */
  sign(data: string): string;
  /** The HMAC key of MPP challenge ids (draft-httpauth-payment), so any process can verify any challenge. */
  challengeKey: string;
  /** The deletion token of the entity paid by `paymentIntentId` (a UUID v4 in form). */
  deletionToken(paymentIntentId: string): string;
  /** A 32-byte key derived from this one for another purpose (`info` names it): e.g. sealing the LTI tool's private keys. */
  derivedKey(info: string): Buffer;
}

function loadPrivateKey(config: Pick<Config, 'entitySigningKey' | 'dataDir'>): KeyObject {
  if (config.entitySigningKey) {
    return createPrivateKey({ key: Buffer.from(config.entitySigningKey, 'base64'), format: 'der', type: 'pkcs8' });
  }
  const file = path.join(config.dataDir, 'keys', 'entity-signing-key.pem');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    try {
      // `wx`: when two processes race, the first file wins and both read it back.
      fs.writeFileSync(file, privateKey.export({ format: 'pem', type: 'pkcs8' }), { flag: 'wx', mode: 0o600 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return createPrivateKey(fs.readFileSync(file));
}

const cache = new Map<string, EntityKeys>();

export function loadEntityKeys(config: Pick<Config, 'entitySigningKey' | 'dataDir'>): EntityKeys {
  const cacheKey = config.entitySigningKey ?? `dir:${config.dataDir}`;
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const privateKey = loadPrivateKey(config);
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { x: string };
  const keyId = `ed25519-${sha256Hex(jwk.x).slice(0, 16)}`;
  const tokenKey = Buffer.from(
    hkdfSync(
      'sha256',
      privateKey.export({ format: 'der', type: 'pkcs8' }),
      Buffer.alloc(0),
      'voicename entity deletion tokens',
      32,
    ),
  );
  const challengeKey = Buffer.from(
    hkdfSync('sha256', privateKey.export({ format: 'der', type: 'pkcs8' }), Buffer.alloc(0), 'voicename mpp challenge ids', 32),
  ).toString('base64url');
  const keys: EntityKeys = {
    keyId,
    challengeKey,
    publicJwk: { kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: keyId, use: 'sig', alg: 'EdDSA' },
    sign: (data) => sign(null, Buffer.from(data), privateKey).toString('base64url'),
    derivedKey: (info) =>
      Buffer.from(hkdfSync('sha256', privateKey.export({ format: 'der', type: 'pkcs8' }), Buffer.alloc(0), info, 32)),
    deletionToken(paymentIntentId) {
      const bytes = createHmac('sha256', tokenKey).update(paymentIntentId).digest().subarray(0, 16);
      bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
      bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
      const hex = bytes.toString('hex');
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    },
  };
  cache.set(cacheKey, keys);
  return keys;
}
