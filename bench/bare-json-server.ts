/**
 * The baseline of bench/json-endpoints.ts: the least each JSON endpoint must do, written by hand.
 * A bare node:http server over the app's SQLite file that checks the Bearer key (prefix lookup and
 * SHA-256), runs the endpoint's query as raw SQL through prepared better-sqlite3 statements and
 * answers the same JSON body with the same headers (the bench reads them from the app once and
 * passes them in BARE_HEADERS). No service, repo or cache of the app is used: what the API costs
 * beyond this is everything the framework and our code add.
 * Started by bench/lib.ts with the app's settings (DATA_DIR, BASE_URL) and PORT.
 *
 *   GET  /collections                        the account's live collections, 50 per page
 *   POST /collections                        one collection inserted and returned
 *   GET  /users?collection_id=…              the collection's people, 50 per page
 *   GET  /batch?collection_id=…&user_ids=…   up to 100 play links, in request order
 *   GET  /meta/<token>                       a play link's public metadata (no key)
 */
import { createHash, randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import SQLite from 'better-sqlite3';

const baseUrl = process.env.BASE_URL as string;
const headers = JSON.parse(process.env.BARE_HEADERS ?? '{}') as Record<string, Record<string, string>>;
const db = new SQLite(path.join(process.env.DATA_DIR as string, 'voicename.db'));
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');

type Row = Record<string, unknown>;
const apiKey = db.prepare('select account_id, key_hash, revoked_at from api_keys where prefix = ?');
const collection = db.prepare('select id from collections where id = ? and account_id = ? and archived_at is null');
const collectionPage = db.prepare(
  'select * from collections where account_id = ? and archived_at is null order by created_at desc, id desc limit 51',
);
const insertCollection = db.prepare(
  `insert into collections (id, account_id, name, description, custom_fields, member_count, recorded_count, review_required, created_at, updated_at)
   values (?, ?, ?, ?, '[]', 0, 0, 0, ?, ?) returning *`,
);
const usersPage = db.prepare(
  `select u.*, r.user_id as recording_user_id from users u left join recordings r on r.user_id = u.id
   where u.collection_id = ? order by u.created_at desc, u.id desc limit 51`,
);
const usersById = db.prepare(
  `select u.id, u.collection_id, u.display_name, pl.token from users u
   left join recordings r on r.user_id = u.id
   left join play_links pl on pl.user_id = u.id and pl.status = 'active' and r.user_id is not null
   where u.id in (select value from json_each(?))`,
);
const linkMeta = db.prepare(
  `select pl.token, pl.play_count, u.display_name, u.preferred_name, u.pronouns, u.phonetic_spelling,
     r.mime_type, r.duration_ms, r.recorded_at
   from play_links pl join users u on u.id = pl.user_id join recordings r on r.user_id = u.id
   join collections c on c.id = u.collection_id
   where pl.token = ? and pl.status = 'active' and c.archived_at is null`,
);

function accountOf(req: http.IncomingMessage): string | null {
  const key = /^Bearer (vn_([A-Za-z0-9_-]{12})[A-Za-z0-9_-]{32})$/.exec(req.headers.authorization ?? '');
  if (!key) return null;
  const row = apiKey.get(`vn_${key[2]}`) as Row | undefined;
  const hash = createHash('sha256')
    .update(key[1] as string)
    .digest('hex');
  return row && row.key_hash === hash && row.revoked_at === null ? (row.account_id as string) : null;
}

const page = (rows: Row[], item: (row: Row) => unknown) => {
  const last = rows[49];
  return {
    data: rows.slice(0, 50).map(item),
    has_more: rows.length > 50,
    next_cursor: rows.length > 50 && last ? Buffer.from(JSON.stringify([last.created_at, last.id])).toString('base64url') : null,
  };
};

const toCollection = (row: Row) => ({
  id: row.id,
  name: row.name,
  description: row.description,
  custom_fields: JSON.parse(row.custom_fields as string) as unknown,
  member_count: row.member_count,
  recorded_count: row.recorded_count,
  review_required: row.review_required === 1,
  deadline: row.deadline,
  language: row.language,
  self_edit: row.self_edit === 1,
  branding: {
    organisation_name: row.organisation_name,
    intro: row.intro,
    privacy_note: row.privacy_note,
    logo_url: row.logo_key === null ? null : `${baseUrl}/${row.logo_key as string}`,
  },
  invitation_settings: {
    reminders: JSON.parse(row.reminder_days as string) as unknown,
    sender_name: row.sender_name,
    reply_to: row.reply_to,
    message: row.invitation_message,
  },
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const toUser = (row: Row) => ({
  id: row.id,
  collection_id: row.collection_id,
  email: row.email,
  first_name: row.first_name,
  last_name: row.last_name,
  display_name: row.display_name,
  preferred_name: row.preferred_name,
  pronouns: row.pronouns,
  external_id: row.external_id,
  phonetic_spelling: row.phonetic_spelling,
  custom_fields: JSON.parse(row.custom_fields as string) as unknown,
  has_recording: row.recording_user_id !== null,
  recording_status: row.recording_status,
  review_note: row.review_note,
  record_url: `${baseUrl}/r/${row.record_token as string}`,
  invitation: {
    status: row.mail_status,
    error: row.mail_error,
    invited_at: row.invited_at,
    updated_at: row.mail_updated_at,
    unsubscribed_at: row.unsubscribed_at,
  },
  field_sources: row.field_sources ? (JSON.parse(row.field_sources as string) as unknown) : {},
  updated_by: null, // the bench's people were seeded without provenance
  created_at: row.created_at,
  updated_at: row.updated_at,
});

function batch(collectionId: string, raw: string) {
  const ids = raw
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');
  const rows = new Map((usersById.all(JSON.stringify(ids)) as Row[]).map((row) => [row.id as string, row]));
  return {
    data: ids.map((id) => {
      const row = rows.get(id);
      const mine = row?.collection_id === collectionId ? row : undefined;
      return {
        user_id: id,
        display_name: mine?.display_name ?? '',
        has_recording: mine?.token != null,
        play_link: mine?.token ? `${baseUrl}/p/${mine.token as string}` : null,
      };
    }),
  };
}

function meta(token: string) {
  const row = linkMeta.get(token) as Row | undefined;
  if (!row) return undefined;
  const link = `${baseUrl}/p/${token}`;
  const name = row.display_name as string;
  const title = `How to say ${name}`.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return {
    play_link: link,
    play_url: `${link}.mp3`,
    embed_html: `<iframe src="${link}/embed" width="200" height="40" frameborder="0" title="${title}"></iframe>`,
    display_name: name,
    duration_seconds: Math.max(1, Math.round((row.duration_ms as number) / 1000)),
    recorded_at: row.recorded_at,
    status: 'active',
    token,
    preferred_name: row.preferred_name,
    pronouns: row.pronouns,
    phonetic_spelling: row.phonetic_spelling,
    audio_mime_type: row.mime_type,
    embed_url: `${link}/embed`,
    oembed_url: `${baseUrl}/oembed?url=${encodeURIComponent(link)}&format=json`,
    play_count: row.play_count,
  };
}

/** [route name for the headers, status, body] */
function answer(req: http.IncomingMessage, body: string): [string, number, unknown] {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (url.pathname.startsWith('/meta/')) {
    const found = meta(url.pathname.slice('/meta/'.length));
    return found ? ['meta', 200, found] : ['meta', 404, { error: 'not found' }];
  }
  const accountId = accountOf(req);
  if (accountId === null) return ['error', 401, { error: 'invalid key' }];
  const collectionId = url.searchParams.get('collection_id') ?? '';
  switch (`${req.method} ${url.pathname}`) {
    case 'GET /collections':
      return ['collections', 200, page(collectionPage.all(accountId) as Row[], toCollection)];
    case 'POST /collections': {
      const input = JSON.parse(body) as { name: string; description?: string };
      const now = new Date().toISOString();
      const row = insertCollection.get(randomUUID(), accountId, input.name, input.description ?? null, now, now) as Row;
      return ['create', 201, toCollection(row)];
    }
    case 'GET /users':
      if (!collection.get(collectionId, accountId)) return ['error', 404, { error: 'no such collection' }];
      return ['users', 200, page(usersPage.all(collectionId) as Row[], toUser)];
    case 'GET /batch':
      if (!collection.get(collectionId, accountId)) return ['error', 404, { error: 'no such collection' }];
      return ['batch', 200, batch(collectionId, url.searchParams.get('user_ids') ?? '')];
    default:
      return ['error', 404, { error: 'no such route' }];
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const [route, status, json] = answer(req, Buffer.concat(chunks).toString('utf8'));
      // The app sends a fresh request id with every answer; so does the baseline.
      res
        .writeHead(status, { ...headers[route], 'x-request-id': `req_${randomUUID().replaceAll('-', '')}` })
        .end(JSON.stringify(json));
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
