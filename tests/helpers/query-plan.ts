/**
 * The query plan of the first statement a repo function sends, as text (one line per plan
 * node), from each database's own EXPLAIN. On PostgreSQL sequential scans are switched off for
 * the statement: test tables are nearly empty, where a scan is cheapest, and the plan should
 * show what the index does for a table of millions.
 */
import { CompiledQuery, type Kysely, type QueryId, type RootOperationNode, sql } from 'kysely';
import type { Database } from '../../src/db/schema.js';
import { usingPostgres } from './database.js';

export async function planOf(kysely: Kysely<Database>, run: (db: Kysely<Database>) => Promise<unknown>): Promise<string> {
  let first: { node: RootOperationNode; queryId: QueryId } | undefined;
  const capturing = kysely.withPlugin({
    transformQuery(args) {
      first ??= args;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  await run(capturing);
  if (!first) throw new Error('no query was run');
  const compiled = kysely.getExecutor().compileQuery(first.node, first.queryId);
  if (!usingPostgres()) {
    const plan = await kysely.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
    );
    return plan.rows.map((row) => row.detail).join('\n');
  }
  return kysely.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
    );
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}
