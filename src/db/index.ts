/**
 * Database adapter: builds a Kysely instance for SQLite (embedded default) or PostgreSQL.
 * This folder is the only place that knows which dialect is in use; everything else writes
 * portable Kysely queries against `Database`.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import type { DatabaseConfig } from '../config.js';
import { loadPg } from './pg.js';
import type { Database } from './schema.js';
import { type Checkpointer, startBackgroundCheckpoints } from './sqlite-checkpoint.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** PostgreSQL schema the connection is confined to, when not the default. */
  schema: string | undefined;
  /** True when the database answers a trivial query. */
  ping(): Promise<boolean>;
  /**
   * SQLite only (undefined on PostgreSQL, whose own tools do it): a consistent copy of the live
   * database written to `file` through SQLite's online backup API, while it keeps serving.
   */
  backup?(file: string): Promise<void>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** PostgreSQL only: put this schema first on the search path (it must exist). Tests use one per file. */
  schema?: string;
  poolSize?: number;
}

export function openDb(config: DatabaseConfig, options: OpenDbOptions = {}): Db {
  const opened: { kysely: Kysely<Database>; database?: SQLite.Database; checkpointer?: Checkpointer } =
    config.dialect === 'sqlite' ? openSqlite(config.file) : { kysely: openPostgres(config.url, options) };
  const { kysely } = opened;
  const raw = opened.database;
  return {
    kysely,
    ...(raw
      ? {
          async backup(file: string) {
            // Written beside the target and renamed: a reader never sees half a backup.
            const partial = `${file}.partial`;
            await raw.backup(partial);
            fs.renameSync(partial, file);
          },
        }
      : {}),
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
    async close() {
      await opened.checkpointer?.stop();
      await kysely.destroy();
    },
  };
}

function openSqlite(file: string): { kysely: Kysely<Database>; database: SQLite.Database; checkpointer?: Checkpointer } {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const database = new SQLite(file);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('foreign_keys = ON');
  // Erasure must reach the disk: deleted rows are overwritten with zeros, not left in free pages.
  database.pragma('secure_delete = ON');
  // When the log starts afresh (after a complete checkpoint), it is cut to the new transaction:
  // frames that held erased rows do not linger in the -wal file until they happen to be overwritten.
  database.pragma('journal_size_limit = 0');
  // Other processes (CLI, a separate worker) may hold the write lock briefly.
  database.pragma('busy_timeout = 5000');
  // Reads of the hot paths (play links, batch lookups) touch rows all over the file: keep up to
  // 64 MB of pages in SQLite's own cache and read the rest through a memory map, not syscalls.
  database.pragma('cache_size = -65536');
  database.pragma('mmap_size = 268435456');
  const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(database) }) });
  if (file === ':memory:') return { kysely, database };
  return { kysely, database, checkpointer: startBackgroundCheckpoints(database, file) };
}

/**
 * Kysely prepares every query anew; preparing costs more than running most of our indexed
 * queries. Our SQL text is generated from a bounded set of query shapes, so a small cache of
 * prepared statements keyed by SQL text is safe and removes that cost from the hot paths.
 */
function withStatementCache(database: SQLite.Database): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = database.prepare.bind(database);
  return new Proxy(database, {
    get(target, property, receiver) {
      if (property !== 'prepare') {
        const value = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (source: string) => {
        let statement = cache.get(source);
        if (!statement) {
          if (cache.size >= 500) cache.delete(cache.keys().next().value as string);
          statement = prepare(source);
          cache.set(source, statement);
        }
        return statement;
      };
    },
  });
}

function openPostgres(url: string, options: OpenDbOptions): Kysely<Database> {
  const { schema } = options;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`bad schema name ${schema}`);
  const { Pool } = loadPg();
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}
