/**
 * Database adapter: builds a Kysely instance for SQLite (embedded default) or PostgreSQL.
 * This folder is the only place that knows which dialect is in use; everything else writes
 * portable Kysely queries against `Database`.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import type { Database } from './schema.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the connection is confined to, when not the default. */
  schema: string | undefined;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** PostgreSQL only: put this schema first on the search path (it must exist). Tests use one per file. */
  schema?: string;
  poolSize?: number;
}

export function openDb(config: DatabaseConfig, options: OpenDbOptions = {}): Db {
  const kysely = config.dialect === 'sqlite' ? openSqlite(config.file) : openPostgres(config.url, options);
  return {
    kysely,
    dialect: config.dialect,
    schema: config.dialect === 'postgres' ? options.schema : undefined,
    async ping() {
      try {
        await sql`select 1`.execute(kysely);
        return true;
      } catch {
        return false;
      }
    },
    close: () => kysely.destroy(),
  };
}

function openSqlite(file: string): Kysely<Database> {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Other processes (CLI, a separate worker) may hold the write lock briefly.
  database.pragma('busy_timeout = 5000');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database }) });
}

// Counts come back as strings from pg for bigint; our integers fit in JS numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

function openPostgres(url: string, options: OpenDbOptions): Kysely<Database> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
