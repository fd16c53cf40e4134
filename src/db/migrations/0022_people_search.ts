import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * Indexes for the dashboard's people search (a substring of the display name or the e-mail), so
 * a search reads the people who match instead of every person of the collection.
 *
 * SQLite: an FTS5 table with the trigram tokenizer (case folded, diacritics kept) and
 * `secure-delete`, so a deleted person's trigrams are removed from the index's pages rather than
 * merely marked deleted (erasure). It keeps its own copy of the text: FTS5 needs the old text to
 * remove a row's trigrams (a contentless table only records that the row is gone, and keeps the
 * trigrams until its segments happen to merge); that copy is an ordinary table, zeroed on delete
 * like every other (`secure_delete` in src/db/index.ts). Its rowids come from
 * `users_search_keys`, whose INTEGER PRIMARY KEY survives VACUUM (a `users` rowid need not), and
 * triggers keep both in step with `users`, whatever writes it.
 *
 * PostgreSQL: `pg_trgm`'s GIN indexes on the two expressions the search compares. The extension
 * is database-wide; it is created in `public` unless it exists already (an administrator may
 * have put it elsewhere), and the operator class is named with its schema, so the indexes do not
 * depend on the search path.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    await sql`create table users_search_keys (rowid integer primary key, user_id text not null unique)`.execute(db);
    await sql`create virtual table users_search using fts5(display_name, email, tokenize = 'trigram')`.execute(db);
    await sql`insert into users_search (users_search, rank) values ('secure-delete', 1)`.execute(db);
    await sql`create trigger users_search_insert after insert on users begin
      insert into users_search_keys (user_id) values (new.id);
      insert into users_search (rowid, display_name, email)
        values ((select rowid from users_search_keys where user_id = new.id), new.display_name, new.email_normalized);
    end`.execute(db);
    await sql`create trigger users_search_update after update of display_name, email_normalized on users begin
      delete from users_search where rowid = (select rowid from users_search_keys where user_id = old.id);
      insert into users_search (rowid, display_name, email)
        values ((select rowid from users_search_keys where user_id = new.id), new.display_name, new.email_normalized);
    end`.execute(db);
    await sql`create trigger users_search_delete after delete on users begin
      delete from users_search where rowid = (select rowid from users_search_keys where user_id = old.id);
      delete from users_search_keys where user_id = old.id;
    end`.execute(db);
    await sql`insert into users_search_keys (user_id) select id from users order by rowid`.execute(db);
    await sql`insert into users_search (rowid, display_name, email)
      select k.rowid, u.display_name, u.email_normalized from users_search_keys k join users u on u.id = k.user_id`.execute(db);
    return;
  }
  // Several processes (or test schemas) may migrate at once; only one may create the extension.
  await sql`select pg_advisory_xact_lock(7301220260022)`.execute(db);
  await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  const found = await sql<{ schema: string }>`
    select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`.execute(db);
  const opclass = sql.raw(`${found.rows[0]?.schema ?? 'public'}.gin_trgm_ops`);
  await sql`create index users_display_name_trgm on users using gin (lower(display_name) ${opclass})`.execute(db);
  await sql`create index users_email_trgm on users using gin (email_normalized ${opclass})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) {
    for (const trigger of ['users_search_insert', 'users_search_update', 'users_search_delete']) {
      await sql`drop trigger ${sql.raw(trigger)}`.execute(db);
    }
    await sql`drop table users_search`.execute(db);
    await sql`drop table users_search_keys`.execute(db);
    return;
  }
  // The extension stays: other schemas of the database may use it.
  await db.schema.dropIndex('users_email_trgm').execute();
  await db.schema.dropIndex('users_display_name_trgm').execute();
}
