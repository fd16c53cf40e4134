/**
 * The tool's own RS256 keys: one key set for the whole service, published at `/lti/jwks`, used to
 * sign the client assertions of NRPS token requests and Deep Linking responses.
 *
 * Kept in the database, so every process signs with the key every other process publishes; the
 * private half is sealed with AES-256-GCM under a key derived from the entity signing key
 * (ENTITY_SIGNING_KEY, else the key generated in DATA_DIR/keys), so a copy of the database alone
 * signs nothing.
 *
 * Rotation: a new key is published at once and signs only from a day later, so platforms that
 * cache the key set have seen it before the first message it signs; the keys it replaces stay
 * published for a week after it starts signing, for messages signed just before. The periodic
 * task rotates a key after 90 days and deletes keys past their retirement.
 */
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import type { TransactionDeps } from '../../db/transaction.js';
import { isoNow } from '../../lib/clock.js';
import { randomToken } from '../../lib/ids.js';
import { deleteRetiredToolKeys, insertToolKey, listToolKeys, retireToolKeysExcept, type ToolKeyRow } from './repo.js';

export type ToolKeyDeps = TransactionDeps & { agentApi: { keys: { derivedKey(info: string): Buffer } } };

/** A new key is published this long before it signs. */
export const KEY_PUBLISHED_BEFORE_SIGNING_MS = 24 * 60 * 60_000;
/** A replaced key stays published this long after its successor starts signing. */
export const KEY_PUBLISHED_AFTER_REPLACEMENT_MS = 7 * 24 * 60 * 60_000;
/** Keys are replaced after this long. */
export const KEY_LIFETIME_MS = 90 * 24 * 60 * 60_000;

export interface PublicJwk {
  kty: string;
  n: string;
  e: string;
  kid: string;
  alg: 'RS256';
  use: 'sig';
}

const SEALING_INFO = 'voicename lti tool keys';

function seal(deps: ToolKeyDeps, privateKey: KeyObject): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deps.agentApi.keys.derivedKey(SEALING_INFO), iv);
  const body = Buffer.concat([cipher.update(privateKey.export({ format: 'der', type: 'pkcs8' })), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

function unseal(deps: ToolKeyDeps, sealed: string): KeyObject {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  const decipher = createDecipheriv('aes-256-gcm', deps.agentApi.keys.derivedKey(SEALING_INFO), iv as Buffer);
  decipher.setAuthTag(tag as Buffer);
  const der = Buffer.concat([decipher.update(body as Buffer), decipher.final()]);
  return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

function newKeyRow(deps: ToolKeyDeps, signsFrom: Date): ToolKeyRow {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `lti-${randomToken(12)}`;
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as { n: string; e: string };
  const publicJwk: PublicJwk = { kty: 'RSA', n: jwk.n, e: jwk.e, kid, alg: 'RS256', use: 'sig' };
  return {
    kid,
    public_jwk: JSON.stringify(publicJwk),
    private_key_sealed: seal(deps, privateKey),
    created_at: isoNow(deps.clock),
    signs_from: signsFrom.toISOString(),
    retires_at: null,
  };
}

const published = (rows: ToolKeyRow[], now: string) => rows.filter((row) => row.retires_at === null || row.retires_at > now);

/** The keys, making the first one (signing at once) when there is none yet. */
async function currentKeys(deps: ToolKeyDeps): Promise<ToolKeyRow[]> {
  const now = isoNow(deps.clock);
  const rows = published(await listToolKeys(deps.db.kysely), now);
  if (rows.length > 0) return rows;
  await insertToolKey(deps.db.kysely, newKeyRow(deps, deps.clock.now()));
  return published(await listToolKeys(deps.db.kysely), now);
}

/** The public key set served at `/lti/jwks`: every key published now. */
export async function toolKeySet(deps: ToolKeyDeps): Promise<{ keys: PublicJwk[] }> {
  return { keys: (await currentKeys(deps)).map((row) => JSON.parse(row.public_jwk) as PublicJwk) };
}

/** The key that signs now: the newest whose signing time has come. */
export async function signingKey(deps: ToolKeyDeps): Promise<{ kid: string; privateKey: KeyObject }> {
  const now = isoNow(deps.clock);
  const rows = await currentKeys(deps);
  // Rows come newest first; a key not signing yet is skipped (the first key ever signs at once).
  const row = rows.find((candidate) => candidate.signs_from <= now) ?? rows[rows.length - 1];
  if (!row) throw new Error('no LTI tool key could be made');
  return { kid: row.kid, privateKey: unseal(deps, row.private_key_sealed) };
}

/**
 * Publishes a new key that signs from a day later and schedules the keys it replaces to be
 * unpublished a week after that. Answers the new key's id.
 */
export async function rotateToolKeys(deps: ToolKeyDeps): Promise<string> {
  const signsFrom = new Date(deps.clock.now().getTime() + KEY_PUBLISHED_BEFORE_SIGNING_MS);
  const row = newKeyRow(deps, signsFrom);
  await insertToolKey(deps.db.kysely, row);
  await retireToolKeysExcept(
    deps.db.kysely,
    row.kid,
    new Date(signsFrom.getTime() + KEY_PUBLISHED_AFTER_REPLACEMENT_MS).toISOString(),
  );
  return row.kid;
}

/** Periodic: rotates when the newest key is older than its lifetime; deletes retired keys. */
export async function maintainToolKeys(deps: ToolKeyDeps): Promise<void> {
  const now = deps.clock.now();
  await deleteRetiredToolKeys(deps.db.kysely, now.toISOString());
  const newest = (await listToolKeys(deps.db.kysely))[0];
  if (newest && Date.parse(newest.created_at) + KEY_LIFETIME_MS <= now.getTime()) await rotateToolKeys(deps);
}
