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
 * is atomic. This is the only dialect-specific SQL of the service. Queues whose rows belong to
 * someone can ask for a fair claim instead (`fair`, below).
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
  /** Share the claim fairly between keys and owners instead of taking the oldest rows first. */
  fair?: FairShare;
}

/**
 * Fair sharing for a queue whose rows belong to a key (a webhook) owned by someone (an account):
 * at most `maxPerKey` rows of one key hold a lease at a time, counting every worker's leases,
 * and the due rows are taken round-robin across owners (each owner's first row, then each
 * owner's second, …), an owner's rows already in flight counting as its earlier turns. Without
 * this a slow key fills every send slot and everyone else's rows wait behind it.
 */
export interface FairShare {
  /** Column of the claimed table holding the key, e.g. `webhook_id`. */
  keyColumn: string;
  /** The owner of the claimed row's key, over `alias` and `join`, e.g. sql`w.account_id`. */
  owner: RawBuilder<unknown>;
  maxPerKey: number;
  /**
   * At most this many rows of one owner hold a lease at a time, counting every worker's leases
   * (none when absent): an owner with many keys cannot take every slot either.
   */
  maxPerOwner?: number;
  /**
   * Narrows the count of rows in flight to those that can hold a lease (e.g. sql`d.status =
   * 'pending'`), so the count reads the queue's index instead of its whole history.
   */
  inFlightScope: RawBuilder<unknown>;
}

/** Claims up to `claim.limit` due rows for `claim.workerId` and returns them as updated. */
export async function claimWithLease<Row>(db: Kysely<Database>, dialect: Dialect, claim: LeaseClaim): Promise<Row[]> {
  if (claim.fair) return claimFairly<Row>(db, dialect, claim, claim.fair);
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

/**
 * The fair claim, one statement on both databases (window functions, no dialect branch but the
 * lock):
 *
 *   with busy as (leased rows counted per key and owner),
 *        due as (due, free rows with their place in the queue and their rank within their key),
 *        eligible as (due rows whose key rank + the key's leases <= maxPerKey, ranked within
 *                     their owner, after the owner's leases),
 *        within_owner_cap as (eligible rows whose owner rank <= maxPerOwner, if set)
 *   update <table> set locked_by = ?, locked_until = ?
 *   where id in (select <alias>.id from <table> <alias> [join …]
 *                where <alias>.id in (select id from eligible order by owner_rank, queue_pos limit n)
 *                  and <due> and the lease is free [for update of <alias> skip locked])
 *   returning *
 *
 * The last selection repeats the due conditions because PostgreSQL re-evaluates them on a row
 * changed since the statement began, and cannot lock rows in a query with window functions. Its
 * per-key count is only exact if no other worker claims at the same moment, so on PostgreSQL fair
 * claims take a transaction-scoped advisory lock first: claims are short, and SQLite serialises
 * them anyway.
 */
async function claimFairly<Row>(db: Kysely<Database>, dialect: Dialect, claim: LeaseClaim, fair: FairShare): Promise<Row[]> {
  const table = sql.table(claim.table);
  const alias = sql.id(claim.alias);
  const join = claim.join ?? sql``;
  const lockedUntil = sql.ref(`${claim.alias}.locked_until`);
  const key = sql.ref(`${claim.alias}.${fair.keyColumn}`);
  const alsoSet = claim.alsoSet ? sql`, ${claim.alsoSet}` : sql``;
  const free = sql`(${lockedUntil} is null or ${lockedUntil} < ${claim.now})`;
  const statement = sql<Row>`
    with busy as (
      select ${key} as fair_key, ${fair.owner} as fair_owner, count(*) as n
      from ${table} ${alias} ${join}
      where ${fair.inFlightScope} and ${lockedUntil} >= ${claim.now}
      group by ${key}, ${fair.owner}
    ),
    due as (
      select ${sql.ref(`${claim.alias}.id`)} as id, ${key} as fair_key, ${fair.owner} as fair_owner,
        row_number() over (order by ${claim.orderBy}) as queue_pos,
        row_number() over (partition by ${key} order by ${claim.orderBy}) as key_rank
      from ${table} ${alias} ${join}
      where ${claim.due} and ${free}
    ),
    eligible as (
      select due.id, due.queue_pos,
        row_number() over (partition by due.fair_owner order by due.queue_pos)
          + coalesce((select sum(b.n) from busy b where b.fair_owner = due.fair_owner), 0) as owner_rank
      from due left join busy on busy.fair_key = due.fair_key
      where due.key_rank + coalesce(busy.n, 0) <= ${fair.maxPerKey}
    ),
    within_owner_cap as (
      select id, queue_pos, owner_rank from eligible ${fair.maxPerOwner === undefined ? sql`` : sql`where owner_rank <= ${fair.maxPerOwner}`}
    )
    update ${table} set locked_by = ${claim.workerId}, locked_until = ${claim.leaseUntil}${alsoSet}
    where id in (
      select ${sql.ref(`${claim.alias}.id`)} from ${table} ${alias} ${join}
      where ${sql.ref(`${claim.alias}.id`)} in (select id from within_owner_cap order by owner_rank, queue_pos limit ${claim.limit})
        and ${claim.due} and ${free}
      ${dialect === 'postgres' ? sql`for update of ${alias} skip locked` : sql``}
    )
    returning *`;
  if (dialect !== 'postgres') return (await statement.execute(db)).rows;
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`fair-claim:${claim.table}`}))`.execute(trx);
    return (await statement.execute(trx)).rows;
  });
}
