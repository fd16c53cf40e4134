import type { TransactionDeps } from '../../db/transaction.js';
import { AppError, notFound } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { newId, randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { ensureAccount, findAccountWithEmail, normalizeEmail } from '../accounts/service.js';
import { type ApiKeyRow, findApiKeyByPrefix, insertApiKey, listApiKeysByAccount, revokeApiKeyById, touchApiKey } from './repo.js';

type Deps = TransactionDeps;

/** Key layout: `vn_` + 12-character lookup id + 32-character secret (24 random bytes, 192 bits). */
const KEY_PATTERN = /^vn_([A-Za-z0-9_-]{12})([A-Za-z0-9_-]{32})$/;
/** `last_used_at` is refreshed at most this often, so authentication is a read, not a write. */
const LAST_USED_RESOLUTION_MS = 60_000;

const invalidKey = () =>
  new AppError('invalid_api_key', 'The API key is invalid or has been revoked.', {
    headers: { 'www-authenticate': 'Bearer realm="voicename", error="invalid_token"' },
  });

export interface ApiKeyView {
  id: string;
  account: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AuthContext {
  accountId: string;
  apiKeyId: string;
  /** The key's public prefix and name: how the audit log names the key. */
  apiKeyPrefix: string;
  apiKeyName: string | null;
}

const view = (row: ApiKeyRow, account: string): ApiKeyView => ({
  id: row.id,
  account,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  revoked_at: row.revoked_at,
});

/**
 * Creates an API key for the account with this e-mail (creating the account on first use).
 * The plaintext key is returned once, here; only its SHA-256 is stored.
 */
export async function createApiKey(deps: Deps, input: { accountEmail: string; name?: string | null }) {
  const account = await ensureAccount(deps, input.accountEmail);
  const lookup = randomToken(9); // 12 characters
  const key = `vn_${lookup}${randomToken(24)}`;
  const row: ApiKeyRow = {
    id: newId(),
    account_id: account.id,
    prefix: `vn_${lookup}`,
    key_hash: sha256Hex(key),
    name: input.name ?? null,
    created_at: isoNow(deps.clock),
    last_used_at: null,
    revoked_at: null,
  };
  await insertApiKey(deps.db.kysely, row);
  return { ...view(row, account.email), key };
}

export async function listApiKeys(deps: Deps, accountEmail: string): Promise<ApiKeyView[]> {
  const account = await findAccountWithEmail(deps, normalizeEmail(accountEmail));
  if (!account) return [];
  const rows = await listApiKeysByAccount(deps.db.kysely, account.id);
  return rows.map((row) => view(row, account.email));
}

/** Revokes a key by id; `accountId` scopes the revocation (null: any account, for operators). */
export async function revokeApiKey(deps: Deps, id: string, accountId: string | null = null): Promise<void> {
  const revoked = await revokeApiKeyById(deps.db.kysely, id, accountId, isoNow(deps.clock));
  if (!revoked) throw notFound('active API key', 'id');
}

/**
 * Resolves the `Authorization` header to an account. Missing header → `missing_api_key`;
 * anything else that is not a live key → `invalid_api_key` (one answer for malformed, unknown
 * and revoked keys, so the answer reveals nothing). The hash comparison is constant-time.
 */
export async function authenticate(deps: Deps, header: string | undefined): Promise<AuthContext> {
  if (header === undefined || header.trim() === '') {
    throw new AppError('missing_api_key', 'No API key provided. Send "Authorization: Bearer <API_KEY>".', {
      headers: { 'www-authenticate': 'Bearer realm="voicename"' },
    });
  }
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  const key = match?.[1];
  const parts = key === undefined ? null : KEY_PATTERN.exec(key);
  if (key === undefined || !parts) throw invalidKey();
  const row = await findApiKeyByPrefix(deps.db.kysely, `vn_${parts[1]}`);
  if (!row || !safeEqual(row.key_hash, sha256Hex(key)) || row.revoked_at !== null) throw invalidKey();
  const now = deps.clock.now();
  if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    // Not awaited on purpose: a failed bookkeeping write must not fail the request.
    touchApiKey(deps.db.kysely, row.id, now.toISOString()).catch(() => {});
  }
  return { accountId: row.account_id, apiKeyId: row.id, apiKeyPrefix: row.prefix, apiKeyName: row.name };
}
