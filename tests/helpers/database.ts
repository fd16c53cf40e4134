/**
 * A fresh, migrated database per test file. SQLite by default (a temporary file); PostgreSQL
 * when DATABASE_URL is a postgres:// URL, with one schema per test file so files run in parallel.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { DatabaseConfig } from '../../src/config.js';
import { type Db, openDb } from '../../src/db/index.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { randomToken } from '../../src/lib/ids.js';

export interface TestDatabase {
  db: Db;
  config: DatabaseConfig;
  /** Extra environment for child processes (CLI, workers) so they open this same database. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

export const usingPostgres = (): boolean => /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '');

/**
 * `migrate: false` leaves the schema empty (migration tests bring it to the state they start from).
 * `dialect: 'sqlite'` gives a SQLite file whatever DATABASE_URL says (tests whose subject is the file).
 */
export async function createTestDatabase(options: { migrate?: boolean; dialect?: 'sqlite' } = {}): Promise<TestDatabase> {
  const migrate = options.migrate ?? true;
  if (usingPostgres() && options.dialect !== 'sqlite') {
    const url = process.env.DATABASE_URL as string;
    const schema = `t_${randomToken(9)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '_')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    const config: DatabaseConfig = { dialect: 'postgres', url };
    const db = openDb(config, { schema, poolSize: 5 });
    if (migrate) await migrateToLatest(db);
    const withSchema = new URL(url);
    withSchema.searchParams.set('options', `-c search_path=${schema}`);
    return {
      db,
      config,
      env: { DATABASE_URL: withSchema.toString() },
      // The schema is left in place. Kysely's migrator introspects every schema of the database,
      // and a schema dropped by one test file while another file migrates fails that migration
      // ("schema … does not exist"). scripts/pg-cluster.sh gives each run a throwaway cluster.
      async drop() {
        await db.close();
      },
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-test-'));
  const file = path.join(dir, 'test.db');
  const config: DatabaseConfig = { dialect: 'sqlite', file };
  const db = openDb(config);
  if (migrate) await migrateToLatest(db);
  return {
    db,
    config,
    env: { DATABASE_URL: `sqlite:${file}` },
    async drop() {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
