/**
 * The audit log: who did what to an organisation's data, when and from where. Rows are written
 * by one hook for every route (src/http/audit.ts) from the route's `audit` action name, once the
 * request has succeeded; this service stores and lists them. Rows belong to the organisation.
 */
import type { Db } from '../../db/index.js';
import { type Clock, isoNow } from '../../lib/clock.js';
import { isUuid, newId } from '../../lib/ids.js';
import { decodeCursor, toPage } from '../../lib/pagination.js';
import { findPeopleNames, insertAuditRow, listAuditRows } from './repo.js';

type Deps = { db: Db; clock: Clock };

/** Who acted: a dashboard member (by e-mail) or an API key (by its public prefix and name). */
export type AuditActor = { kind: 'member'; email: string } | { kind: 'api_key'; prefix: string; name: string | null };

export interface AuditEntry {
  id: string;
  actor: AuditActor;
  action: string;
  object_id: string | null;
  /** The person the entry is about, by their current name (null: not a person, or no longer there). */
  object_name: string | null;
  /** What the entry decided beyond its action (a review's `decision` and `note`); null for most entries. */
  detail: AuditDetail | null;
  ip: string;
  created_at: string;
}

/** Short facts about one entry, e.g. `{ decision: 'request_rerecord', note: 'Say the family name slower' }`. */
export type AuditDetail = Record<string, string>;

function parseDetail(text: string | null): AuditDetail | null {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as AuditDetail) : null;
  } catch {
    return null;
  }
}

export const AUDIT_PAGE_SIZE = 50;

/** Appends one entry to the organisation's audit log. */
export async function recordAudit(
  deps: Deps,
  input: {
    accountId: string;
    actor: AuditActor;
    action: string;
    objectId: string | null;
    detail?: AuditDetail | null;
    ip: string;
  },
): Promise<void> {
  await insertAuditRow(deps.db.kysely, {
    id: newId(),
    account_id: input.accountId,
    actor_kind: input.actor.kind,
    actor: input.actor.kind === 'member' ? input.actor.email : input.actor.prefix,
    actor_name: input.actor.kind === 'api_key' ? input.actor.name : null,
    action: input.action,
    object_id: input.objectId === null ? null : input.objectId.slice(0, 300),
    detail: input.detail ? JSON.stringify(input.detail) : null,
    ip: input.ip,
    created_at: isoNow(deps.clock),
  });
}

/** One page of the organisation's log, newest first; `cursor` is the `next_cursor` of the page before (bad: 400 `invalid_cursor`). */
export async function listAuditLog(deps: Deps, accountId: string, input: { cursor?: string; limit?: number } = {}) {
  const limit = input.limit ?? AUDIT_PAGE_SIZE;
  const rows = await listAuditRows(deps.db.kysely, accountId, decodeCursor(input.cursor), limit);
  const personIds = [...new Set(rows.flatMap((row) => (row.object_id !== null && isUuid(row.object_id) ? [row.object_id] : [])))];
  const names = new Map((await findPeopleNames(deps.db.kysely, accountId, personIds)).map((p) => [p.id, p.display_name]));
  return toPage(rows, limit, (row): AuditEntry => ({
    id: row.id,
    actor:
      row.actor_kind === 'member'
        ? { kind: 'member', email: row.actor }
        : { kind: 'api_key', prefix: row.actor, name: row.actor_name },
    action: row.action,
    object_id: row.object_id,
    object_name: row.object_id === null ? null : (names.get(row.object_id) ?? null),
    detail: parseDetail(row.detail),
    ip: row.ip,
    created_at: row.created_at,
  }));
}
