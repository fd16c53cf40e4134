/**
 * The one lease claim of the service, shared by every queue kept in a table (background jobs,
 * webhook deliveries): a worker takes up to `limit` due rows by writing its id and a lease end
 * into `locked_by` / `locked_until`, in one statement:
 *
 *   update <table> set locked_by = ?, locked_until = ? [, …]
 *   where id in (select <alias>.id from <table> <alias> [join …]
 *                where <due> and (<alias>.locked_until is null or <alias>.locked_until < now)
 *                order by … limit n [for update of <alias> skip locked])
 *   returning *
 *
 * A row whose lease ran out (its worker died) is free again. On PostgreSQL rows another worker is
 * claiming at the same moment are skipped (`FOR UPDATE … SKIP LOCKED`), so any number of workers
 * can poll one table; SQLite serialises writers, so the same statement without the locking clause
 * is atomic. This is the only dialect-specific SQL of the service.
 */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Dialect } from './index.js';
import type { Database } from './schema.js';

/** Tables that can be claimed: they have an `id` and the two lease columns. */
export type LeasedTable = {
  [T in keyof Database]: Database[T] extends { id: string; locked_by: string | null; locked_until: string | null } ? T : never;
}[keyof Database];

export interface LeaseClaim {
  table: LeasedTable;
  /** Alias of `table` in the selection; `due`, `join` and `orderBy` refer to the claimed row through it. */
  alias: string;
  /** Tables joined for the conditions, e.g. sql`join webhooks w on w.id = d.webhook_id`. */
  join?: RawBuilder<unknown>;
  /** When a row is due, besides a free lease. */
  due: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>;
  /** Other assignments made with the claim, e.g. sql`attempts = attempts + 1`. */
  alsoSet?: RawBuilder<unknown>;
  workerId: string;
  /** ISO 8601 UTC: leases that ended before this are free. */
  now: string;
  /** ISO 8601 UTC end of the new lease. */
  leaseUntil: string;
  limit: number;
}

/** Claims up to `claim.limit` due rows for `claim.workerId` and returns them as updated. */
export async function claimWithLease<Row>(db: Kysely<Database>, dialect: Dialect, claim: LeaseClaim): Promise<Row[]> {
  const alias = sql.id(claim.alias);
  const lockedUntil = sql.ref(`${claim.alias}.locked_until`);
  const lock = dialect === 'postgres' ? sql`for update of ${alias} skip locked` : sql``;
  const alsoSet = claim.alsoSet ? sql`, ${claim.alsoSet}` : sql``;
  const result = await sql<Row>`
    update ${sql.table(claim.table)} set locked_by = ${claim.workerId}, locked_until = ${claim.leaseUntil}${alsoSet}
    where id in (
      select ${sql.ref(`${claim.alias}.id`)} from ${sql.table(claim.table)} ${alias} ${claim.join ?? sql``}
      where ${claim.due}
        and (${lockedUntil} is null or ${lockedUntil} < ${claim.now})
      order by ${claim.orderBy}
      limit ${claim.limit}
      ${lock}
    )
    returning *`.execute(db);
  return result.rows;
}
