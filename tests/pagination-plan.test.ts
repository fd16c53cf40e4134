/**
 * Deep pages cost what the first page costs: every keyset list must reach the database as an
 * index range (`(created_at, id) < (…)` inside the index condition), never as a filter applied
 * to every newer row. Checked with each database's own EXPLAIN of the SQL the repos really run.
 */
import { CompiledQuery, type Kysely, type QueryId, type RootOperationNode, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/schema.js';
import { listLiveCollections } from '../src/features/collections/repo.js';
import { listPeopleInImportOrder } from '../src/features/exports/repo.js';
import { listUsers } from '../src/features/users/repo.js';
import { listDeliveries, listWebhooks } from '../src/features/webhooks/repo.js';
import type { PageCursor } from '../src/lib/pagination.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';

let t: TestApp;
const cursor: PageCursor = { createdAt: '2026-01-01T00:00:00.000Z', id: '00000000-0000-4000-8000-000000000000' };

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The query plan of the first statement `run` sends, as text (one line per plan node). */
async function planOf(run: (db: Kysely<Database>) => Promise<unknown>): Promise<string> {
  const kysely = t.deps.db.kysely;
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
  // Tables here are nearly empty, where a sequential scan is cheapest; forbid it so the plan
  // shows what the index can do for a table of millions.
  return kysely.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx);
    const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
      CompiledQuery.raw(`explain ${compiled.sql}`, [...compiled.parameters]),
    );
    return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

function expectIndexRange(plan: string, index: string): void {
  if (usingPostgres()) {
    expect(plan).toContain(`using ${index}`);
    expect(plan).toMatch(/Index Cond: .*ROW\(created_at, id\) < ROW\(/);
    expect(plan).not.toMatch(/Filter: .*created_at/);
  } else {
    expect(plan).toMatch(new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} \\(.*\\(created_at,id\\)<\\(\\?,\\?\\)\\)`));
  }
}

describe('keyset pages are index ranges', () => {
  it('users of a collection', async () => {
    const plan = await planOf((db) => listUsers(db, 'c', {}, cursor, 51));
    expectIndexRange(plan, 'users_collection_page');
  });

  it('users of a collection, filtered by recording', async () => {
    const plan = await planOf((db) => listUsers(db, 'c', { hasRecording: false }, cursor, 51));
    expectIndexRange(plan, 'users_collection_page');
  });

  it('users of a collection, filtered by recording status', async () => {
    const plan = await planOf((db) => listUsers(db, 'c', { recordingStatus: 'needs_rerecord' }, cursor, 51));
    expectIndexRange(plan, 'users_collection_status_page');
  });

  it('people of a collection in import order (exports)', async () => {
    const plan = await planOf((db) =>
      listPeopleInImportOrder(db, 'c', { createdAt: cursor.createdAt, importPosition: 7, id: cursor.id }, 500),
    );
    if (usingPostgres()) {
      expect(plan).toContain('using users_collection_import_order');
      expect(plan).toMatch(/Index Cond: .*ROW\(created_at, import_position, id\) > ROW\(/);
      expect(plan).not.toMatch(/Sort/);
    } else {
      expect(plan).toMatch(
        /SEARCH users USING INDEX users_collection_import_order \(.*\(created_at,import_position,id\)>\(\?,\?,\?\)\)/,
      );
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  });

  it('collections of an account', async () => {
    expectIndexRange(await planOf((db) => listLiveCollections(db, 'a', cursor, 51)), 'collections_account_page');
  });

  it('webhooks of an account and deliveries of a webhook', async () => {
    expectIndexRange(await planOf((db) => listWebhooks(db, 'a', cursor, 51)), 'webhooks_account_page');
    expectIndexRange(await planOf((db) => listDeliveries(db, 'w', cursor, 51)), 'webhook_deliveries_page');
  });
});
