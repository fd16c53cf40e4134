/**
 * An organisation's SCIM bearer tokens, kept like API keys: shown once at creation, only their
 * SHA-256 stored, found by a public prefix and compared in constant time, last use recorded
 * (at most once a minute), revocable at once. The lookup reads the database on every request,
 * so a revocation holds in every process from the moment it commits.
 */
import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { isUuid, newId, randomToken } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import {
  findScimTokenByPrefix,
  insertScimToken,
  listScimTokensOfAccount,
  revokeScimTokenRow,
  type ScimTokenRow,
  touchScimToken,
} from './repo.js';

type Deps = { db: Db; clock: Clock };

/** Token layout: `vnscim_` + 12-character lookup id + 32-character secret (24 random bytes). */
const TOKEN_PATTERN = /^vnscim_([A-Za-z0-9_-]{12})([A-Za-z0-9_-]{32})$/;
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ScimTokenView {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Who a SCIM request acts for: the organisation, and the token the audit log names. */
export interface ScimCaller {
  accountId: string;
  tokenId: string;
  prefix: string;
  name: string | null;
}

const view = (row: ScimTokenRow): ScimTokenView => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at,
  last_used_at: row.last_used_at,
  revoked_at: row.revoked_at,
});

export async function createScimToken(deps: Deps, accountId: string, name: string | null) {
  const lookup = randomToken(9);
  const token = `vnscim_${lookup}${randomToken(24)}`;
  const row: ScimTokenRow = {
    id: newId(),
    account_id: accountId,
    prefix: `vnscim_${lookup}`,
    token_hash: sha256Hex(token),
    name,
    created_at: deps.clock.now().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await insertScimToken(deps.db.kysely, row);
  return { ...view(row), token };
}

export async function listScimTokens(deps: Deps, accountId: string): Promise<ScimTokenView[]> {
  return (await listScimTokensOfAccount(deps.db.kysely, accountId)).map(view);
}

/** Revokes the organisation's token; another organisation's id, or a revoked one, is a 404. */
export async function revokeScimToken(deps: Deps, accountId: string, id: string): Promise<void> {
  const revoked = isUuid(id) && (await revokeScimTokenRow(deps.db.kysely, accountId, id, deps.clock.now().toISOString()));
  if (!revoked) throw new AppError('resource_missing', 'No such active SCIM token in your organisation.');
}

const unauthorized = (detail: string) =>
  new AppError('invalid_api_key', detail, { headers: { 'www-authenticate': 'Bearer realm="voicename-scim"' } });

/** The caller of `Authorization: Bearer vnscim_…`, or 401 (one answer for malformed, unknown and revoked tokens). */
export async function authenticateScimToken(deps: Deps, header: string | undefined): Promise<ScimCaller> {
  const token = /^Bearer +(\S+)$/i.exec(header?.trim() ?? '')?.[1];
  const parts = token === undefined ? null : TOKEN_PATTERN.exec(token);
  if (token === undefined || !parts) throw unauthorized('Send the organisation’s SCIM token: "Authorization: Bearer vnscim_…".');
  const row = await findScimTokenByPrefix(deps.db.kysely, `vnscim_${parts[1]}`);
  if (!row || !safeEqual(row.token_hash, sha256Hex(token)) || row.revoked_at !== null) {
    throw unauthorized('The SCIM token is invalid or has been revoked.');
  }
  const now = deps.clock.now();
  if (row.last_used_at === null || now.getTime() - Date.parse(row.last_used_at) > LAST_USED_RESOLUTION_MS) {
    // Not awaited: a failed bookkeeping write must not fail the request.
    touchScimToken(deps.db.kysely, row.id, now.toISOString()).catch(() => {});
  }
  return { accountId: row.account_id, tokenId: row.id, prefix: row.prefix, name: row.name };
}
