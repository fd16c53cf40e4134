/**
 * The `.mp3` benchmark's fair floor: a bare node:http server that reads every active play link's
 * token and audio location from the app's SQLite file with one raw query at start, then answers
 * `GET /p/<token>.mp3` with a Map lookup and the 302 the app writes, header for header
 * (BARE_TEMPLATE: the app's headers in its order, as a flat name/value list; `location` and
 * `x-request-id` are filled per request). Settings (env): PORT, SQLITE_FILE, BASE_URL,
 * KEEP_ALIVE_MS (the app's, so node:http writes the same Keep-Alive header), BARE_TEMPLATE.
 */
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import SQLite from 'better-sqlite3';

const template = JSON.parse(process.env.BARE_TEMPLATE ?? '[]') as string[];
const baseUrl = process.env.BASE_URL ?? '';
const db = new SQLite(process.env.SQLITE_FILE ?? '', { readonly: true });
const rows = db
  .prepare(
    `select l.token, r.blob_key from play_links l join recordings r on r.user_id = l.user_id
     where l.status = 'active'`,
  )
  .all() as { token: string; blob_key: string }[];
db.close();
// The app-served audio path of a content-named blob (`<sha256>.<ext>`), as the app builds it.
const locations = new Map<string, string>();
for (const row of rows) {
  const file = row.blob_key.split('/').pop() ?? '';
  const [hash = '', ext = 'mp3'] = file.split('.');
  locations.set(row.token, `${baseUrl}/p/${row.token}/audio/${hash.slice(0, 32)}.${ext}`);
}

const headers = [...template];
const locationAt = headers.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'location') + 1;
const requestIdAt = headers.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === 'x-request-id') + 1;
const prefix = `req_${randomBytes(6).toString('base64url')}`;
let counter = 0;

const server = http.createServer((req, res) => {
  const url = req.url ?? '';
  const location = url.startsWith('/p/') && url.endsWith('.mp3') ? locations.get(url.slice(3, -4)) : undefined;
  if (location === undefined) {
    res.writeHead(404, { 'content-length': '0' }).end();
    return;
  }
  headers[locationAt] = location;
  headers[requestIdAt] = `${prefix}${(++counter).toString(36)}`;
  res.writeHead(302, headers);
  res.end();
});
server.keepAliveTimeout = Number(process.env.KEEP_ALIVE_MS ?? 5000);
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
