import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * SQLite: the search index is rewritten only when a person's name or e-mail really changes.
 *
 * The trigger of 0022 fired whenever an UPDATE named those columns, and a re-import's upsert
 * names every editable column, so changing only pronouns or a custom field rewrote each row's
 * trigrams. With FTS5's `secure-delete` (kept: a corrected name's old trigrams leave the file
 * at once, as an erased person's do) that costs about 1 ms a person instead of 0.03 ms.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`drop trigger users_search_update`.execute(db);
  await sql`create trigger users_search_update after update of display_name, email_normalized on users
    when old.display_name is not new.display_name or old.email_normalized is not new.email_normalized begin
      delete from users_search where rowid = (select rowid from users_search_keys where user_id = old.id);
      insert into users_search (rowid, display_name, email)
        values ((select rowid from users_search_keys where user_id = new.id), new.display_name, new.email_normalized);
    end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await sql`drop trigger users_search_update`.execute(db);
  await sql`create trigger users_search_update after update of display_name, email_normalized on users begin
      delete from users_search where rowid = (select rowid from users_search_keys where user_id = old.id);
      insert into users_search (rowid, display_name, email)
        values ((select rowid from users_search_keys where user_id = new.id), new.display_name, new.email_normalized);
    end`.execute(db);
}
