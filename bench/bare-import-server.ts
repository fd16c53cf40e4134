/**
 * The baseline of bench/import.ts: the least a CSV import must do, written by hand. A bare
 * node:http server over the app's SQLite file: `POST /import?collection_id=…` reads the CSV body,
 * finds the columns by their header (the bench's file has no quoted fields), and upserts every row
 * by (collection, e-mail) in one transaction with one prepared statement, leaving unchanged rows
 * alone; it answers how many rows were read and how many were written. No key check (one indexed
 * lookup beside 10,000 rows), service, validation report or event of the app.
 * Started by bench/lib.ts with the app's settings (DATA_DIR) and PORT.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import SQLite from 'better-sqlite3';

const db = new SQLite(path.join(process.env.DATA_DIR as string, 'voicename.db'));
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');

const collection = db.prepare('select id from collections where id = ?');
const upsert = db.prepare(
  `insert into users (id, collection_id, email, email_normalized, first_name, last_name, display_name, external_id,
     phonetic_spelling, custom_fields, record_token, recording_status, import_position, field_sources, created_at, updated_at)
   values (@id, @collection_id, @email, @email, @first_name, @last_name, @display_name, @external_id,
     @phonetic_spelling, @custom_fields, @record_token, 'none', @import_position, '{}', @now, @now)
   on conflict (collection_id, email_normalized) do update set
     first_name = excluded.first_name, last_name = excluded.last_name, display_name = excluded.display_name,
     external_id = excluded.external_id, phonetic_spelling = excluded.phonetic_spelling,
     custom_fields = excluded.custom_fields, updated_at = excluded.updated_at
   where users.first_name is not excluded.first_name or users.last_name is not excluded.last_name
     or users.external_id is not excluded.external_id or users.phonetic_spelling is not excluded.phonetic_spelling
     or users.custom_fields is not excluded.custom_fields`,
);
const countMembers = db.prepare(
  'update collections set member_count = (select count(*) from users where collection_id = ?) where id = ?',
);

function importCsv(collectionId: string, csv: string): { rows: number; written: number } {
  const [header = '', ...lines] = csv.split(/\r?\n/).filter(Boolean);
  const columns = header.split(',');
  const at = (name: string) => columns.indexOf(name);
  const [external, email, first, last, phonetic, seat] = [
    at('External ID'),
    at('E-mail'),
    at('First Name'),
    at('Surname'),
    at('Phonetic'),
    at('Seat number'),
  ];
  const now = new Date().toISOString();
  let written = 0;
  db.transaction(() => {
    for (const [position, line] of lines.entries()) {
      const cells = line.split(',');
      const firstName = cells[first] ?? '';
      const lastName = cells[last] ?? '';
      written += upsert.run({
        id: randomUUID(),
        collection_id: collectionId,
        email: (cells[email] ?? '').toLowerCase(),
        first_name: firstName,
        last_name: lastName,
        display_name: lastName === '' ? firstName : `${firstName} ${lastName}`,
        external_id: cells[external] || null,
        phonetic_spelling: cells[phonetic] || null,
        custom_fields: JSON.stringify({ seat: Number(cells[seat]) }),
        record_token: randomBytes(18).toString('base64url'),
        import_position: position,
        now,
      }).changes;
    }
    countMembers.run(collectionId, collectionId);
  })();
  return { rows: lines.length, written };
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://bare');
    if (url.pathname === '/healthz') return void res.end('ok');
    const collectionId = url.searchParams.get('collection_id') ?? '';
    if (req.method !== 'POST' || url.pathname !== '/import' || !collection.get(collectionId)) {
      return void res.writeHead(404).end();
    }
    const body = JSON.stringify(importCsv(collectionId, Buffer.concat(chunks).toString('utf8')));
    res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
