/**
 * Deep pages cost what the first page costs: every keyset list must reach the database as an
 * index range (`(created_at, id) < (…)` inside the index condition), never as a filter applied
 * to every newer row. Checked with each database's own EXPLAIN of the SQL the repos really run.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/schema.js';
import { listLiveCollections } from '../src/features/collections/repo.js';
import { listPeopleInImportOrder } from '../src/features/exports/repo.js';
import { listUsers } from '../src/features/users/repo.js';
import { listDeliveries, listWebhooks } from '../src/features/webhooks/repo.js';
import type { PageCursor } from '../src/lib/pagination.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { planOf as planOfQuery } from './helpers/query-plan.js';

let t: TestApp;
const cursor: PageCursor = { createdAt: '2026-01-01T00:00:00.000Z', id: '00000000-0000-4000-8000-000000000000' };

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const planOf = (run: (db: Kysely<Database>) => Promise<unknown>) => planOfQuery(t.deps.db.kysely, run);

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
