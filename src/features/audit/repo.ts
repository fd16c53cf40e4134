import type { Kysely, Selectable } from 'kysely';
import { olderThanCursor } from '../../db/keyset.js';
import type { AuditLogTable, Database } from '../../db/schema.js';
import type { PageCursor } from '../../lib/pagination.js';

type Db = Kysely<Database>;
export type AuditRow = Selectable<AuditLogTable>;

export const insertAuditRow = (db: Db, row: AuditRow) => db.insertInto('audit_log').values(row).execute();

/** One page of the organisation's audit log, newest first (`limit + 1` rows: the caller learns whether more exist). */
export const listAuditRows = (db: Db, accountId: string, cursor: PageCursor | null, limit: number): Promise<AuditRow[]> =>
  db
    .selectFrom('audit_log')
    .selectAll()
    .where('account_id', '=', accountId)
    .$if(cursor !== null, (q) => q.where(olderThanCursor('created_at', 'id', cursor as PageCursor)))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit + 1)
    .execute();

/**
 * The names of the people (of this organisation's collections) among these object ids: the log
 * names a person as they are called now, and no longer once they are deleted.
 */
export const findPeopleNames = (db: Db, accountId: string, ids: string[]): Promise<{ id: string; display_name: string }[]> =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('users')
        .innerJoin('collections', 'collections.id', 'users.collection_id')
        .select(['users.id', 'users.display_name'])
        .where('collections.account_id', '=', accountId)
        .where('users.id', 'in', ids)
        .execute();
