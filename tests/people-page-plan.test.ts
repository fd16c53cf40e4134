/**
 * The dashboard's people table reads every page, in each of its orders and with its filters, as
 * one index range after the cursor: page 500 costs what page 1 costs, and nothing is sorted. A
 * filter by one recording status (not recorded, needs re-record, awaiting review, recorded with
 * review on) in date order reads the status index, so it skips the people of other statuses. A
 * coverage filter (a guide approved, unapproved or missing) looks each person's guide up by key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPeoplePage, type PeopleFilters, type PeopleOrder } from '../src/features/users/repo.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { planOf } from './helpers/query-plan.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const CASES: { order: PeopleOrder; index: string; column: string; comparison: '<' | '>'; value: string }[] = [
  { order: 'newest', index: 'users_collection_page', column: 'created_at', comparison: '<', value: '2026-01-01T00:00:00.000Z' },
  { order: 'oldest', index: 'users_collection_page', column: 'created_at', comparison: '>', value: '2026-01-01T00:00:00.000Z' },
  { order: 'name', index: 'users_collection_name', column: 'display_name', comparison: '>', value: 'Mara Ortiz' },
];
const FILTERS: [string, PeopleFilters][] = [
  ['no filter', {}],
  ['one status (not recorded)', { statuses: ['none'] }],
  ['several statuses (recorded, review off)', { statuses: ['recorded', 'approved', 'needs_rerecord'] }],
  ['a search', { search: 'ana' }],
  ['a search and a status', { search: 'ana', statuses: ['needs_rerecord'] }],
  // Coverage: the status `none` and each guide looked up by its key, never the whole guides table.
  ['a coverage (computer voice)', { statuses: ['none'], guide: 'approved' }],
  ['a coverage (guide only)', { statuses: ['none'], guide: 'unapproved' }],
  ['a coverage (nothing yet)', { statuses: ['none'], guide: 'missing' }],
];

describe('people pages are index ranges', () => {
  for (const { order, index, column, comparison, value } of CASES) {
    for (const [label, filters] of FILTERS) {
      // One status of a date order: the status index ranges over exactly those people.
      const byStatus = filters.statuses?.length === 1 && order !== 'name';
      const expected = byStatus ? 'users_collection_status_page' : index;
      const prefix = byStatus ? 'recording_status=\\? AND ' : '';
      it(`${order}, ${label}`, async () => {
        const after = { value, id: '00000000-0000-4000-8000-000000000000' };
        const plan = await planOf(t.deps.db.kysely, (db) => listPeoplePage(db, 'c', filters, order, after, 101));
        if (usingPostgres()) {
          expect(plan).toContain(`using ${expected}`);
          expect(plan).toMatch(new RegExp(`Index Cond: .*ROW\\(${column}, id\\) \\${comparison} ROW\\(`));
          expect(plan).not.toMatch(/^\s*(->\s*)?Sort/m);
        } else {
          expect(plan).toMatch(
            new RegExp(
              `SEARCH users USING (COVERING )?INDEX ${expected} \\(.*${prefix}\\(${column},id\\)\\${comparison}\\(\\?,\\?\\)\\)`,
            ),
          );
          expect(plan).not.toContain('TEMP B-TREE');
        }
        if (filters.guide !== undefined) {
          expect(plan).toMatch(
            usingPostgres() ? /pronunciations_pkey/ : /SEARCH pronunciations (EXISTS )?USING .*\(user_id=\?\)/,
          );
          expect(plan).not.toMatch(/SCAN pronunciations|Seq Scan on pronunciations/);
        }
      });
    }
  }
});
