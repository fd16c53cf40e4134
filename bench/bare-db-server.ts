/**
 * The baseline that does the same database work as the API, without the framework: a bare
 * node:http server over the same SQLite file that authenticates the Bearer key and lists (GET) or
 * creates (POST) collections through the very service functions the routes call, and answers
 * their JSON. What the API costs beyond it is routing, validation, hooks and serialisation.
 * Started by bench/lib.ts with the app's settings (DATA_DIR, BASE_URL) and PORT.
 */
import http from 'node:http';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';
import { authenticate } from '../src/features/api-keys/service.js';
import { createCollection, listCollections } from '../src/features/collections/service.js';

const deps = createDeps(loadConfig());
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    void (async () => {
      const auth = await authenticate(deps, req.headers.authorization);
      const accountId = auth.accountId;
      if (req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string; description?: string };
        const created = await createCollection(deps, accountId, body);
        res.writeHead(201, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(created));
        return;
      }
      const page = await listCollections(deps, accountId, { limit: 50 });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(page));
    })().catch((err: unknown) => {
      res.writeHead(500).end(String(err));
    });
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
