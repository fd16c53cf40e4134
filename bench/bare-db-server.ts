/**
 * The baseline that does the same database work as the API, without the framework: a bare
 * node:http server over the same SQLite file that authenticates the Bearer key and answers each
 * JSON endpoint of bench/json-endpoints.ts through the very service functions its route calls.
 * What the API costs beyond it is routing, validation, hooks and serialisation.
 * Started by bench/lib.ts with the app's settings (DATA_DIR, BASE_URL) and PORT.
 *
 *   GET  /collections                  listCollections, 50 per page
 *   POST /collections                  createCollection
 *   GET  /users?collection_id=…        listUsers, 50 per page
 *   GET  /batch?collection_id=…&user_ids=…   batchPlayLinks
 *   GET  /meta/<token>                 resolvePlayLink + the play link's public metadata (no key)
 */
import http from 'node:http';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { authenticate } from '../src/features/api-keys/service.js';
import { createCollection, listCollections } from '../src/features/collections/service.js';
import { batchPlayLinks, metaOf, resolvePlayLink } from '../src/features/play-links/service.js';
import { listUsers } from '../src/features/users/service.js';

const deps = createDeps(loadConfig());

async function answer(req: http.IncomingMessage, body: string): Promise<[number, unknown]> {
  const url = new URL(req.url ?? '/', 'http://bare');
  if (url.pathname.startsWith('/meta/')) {
    const link = await resolvePlayLink(deps, url.pathname.slice('/meta/'.length));
    return link ? [200, metaOf(deps, link)] : [404, { error: 'not found' }];
  }
  const { accountId } = await authenticate(deps, req.headers.authorization);
  const collectionId = url.searchParams.get('collection_id') ?? '';
  switch (`${req.method} ${url.pathname}`) {
    case 'POST /collections':
      return [201, await createCollection(deps, accountId, JSON.parse(body) as { name: string; description?: string })];
    case 'GET /collections':
      return [200, await listCollections(deps, accountId, { limit: 50 })];
    case 'GET /users':
      return [200, await listUsers(deps, accountId, collectionId, { limit: 50 })];
    case 'GET /batch':
      return [
        200,
        await batchPlayLinks(deps, accountId, { collection_id: collectionId, user_ids: url.searchParams.get('user_ids') ?? '' }),
      ];
    default:
      return [404, { error: 'no such route' }];
  }
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    answer(req, Buffer.concat(chunks).toString('utf8')).then(
      ([status, json]) => res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(json)),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
