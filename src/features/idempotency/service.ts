import type { Db } from '../../db/index.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import {
  deleteExpiredIdempotencyKeys,
  deleteIdempotencyKey,
  findIdempotencyKey,
  insertIdempotencyKey,
  saveIdempotentResponse,
  type StoredResponse,
} from './repo.js';

type Deps = { db: Db; clock: Clock };

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyStart = { kind: 'first' } | ({ kind: 'replay' } & StoredResponse);

/**
 * Starts a request under an `Idempotency-Key`. The first request with a key runs; a later one
 * with the same key and the same request replays the stored response; the same key with a
 * different request, or while the first is still running, is a 409. Keys live 24 hours.
 */
export async function beginIdempotentRequest(
  deps: Deps,
  input: { accountId: string; key: string; requestHash: string },
): Promise<IdempotencyStart> {
  const now = deps.clock.now();
  const row = {
    account_id: input.accountId,
    key: input.key,
    request_hash: input.requestHash,
    response_status: null,
    response_body: null,
    response_location: null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + IDEMPOTENCY_TTL_MS).toISOString(),
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await insertIdempotencyKey(deps.db.kysely, row)) return { kind: 'first' };
    const existing = await findIdempotencyKey(deps.db.kysely, input.accountId, input.key);
    if (!existing) continue; // removed between our insert and read: try once more
    if (existing.expires_at <= row.created_at) {
      await deleteIdempotencyKey(deps.db.kysely, input.accountId, input.key);
      continue;
    }
    if (existing.request_hash !== input.requestHash) {
      throw new AppError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
      );
    }
    if (existing.response_status === null || existing.response_body === null) {
      throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress.', {
        headers: { 'retry-after': '1' },
      });
    }
    return {
      kind: 'replay',
      status: existing.response_status,
      body: existing.response_body,
      location: existing.response_location,
    };
  }
  throw new AppError('idempotency_request_in_progress', 'A request with this Idempotency-Key is still in progress.', {
    headers: { 'retry-after': '1' },
  });
}

export const finishIdempotentRequest = (deps: Deps, accountId: string, key: string, response: StoredResponse) =>
  saveIdempotentResponse(deps.db.kysely, accountId, key, response);

/** Server errors are not remembered: the client may retry with the same key. */
export const abandonIdempotentRequest = (deps: Deps, accountId: string, key: string) =>
  deleteIdempotencyKey(deps.db.kysely, accountId, key);

export const purgeExpiredIdempotencyKeys = (deps: Deps) =>
  deleteExpiredIdempotencyKeys(deps.db.kysely, deps.clock.now().toISOString());
