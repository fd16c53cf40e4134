/**
 * `GET /v1/collections?limit=50` and `POST /v1/collections` through the whole stack (auth, rate
 * limit, validation, SQLite), against a bare node:http server doing the same database work (the
 * same key check, query or insert and JSON through the same service functions: bench/bare-db-server.ts).
 * Goal: the list >= 0.8x the baseline's requests/s, p99 <= 2x. Run: npm run bench -- collections
 */
import { createCollection } from '../src/features/collections/service.js';
import { bareDbServer, benchAccount, benchApp, measure, report } from './lib.js';

let key = '';
const app = await benchApp(async (deps) => {
  const { key: created, accountId } = await benchAccount(deps, 'bench@example.com');
  key = created;
  for (let i = 0; i < 200; i++) await createCollection(deps, accountId, { name: `Collection ${i}`, description: 'bench' });
});
const auth = { authorization: `Bearer ${key}` };
const createBody = JSON.stringify({ name: 'Bench collection', description: 'created under load' });
const bare = await bareDbServer(app);

const listBaseline = await measure('bare node:http, same key check, query and JSON', { url: bare.url, headers: auth });
const list = await measure('GET /v1/collections?limit=50', { url: `${app.url}/v1/collections?limit=50`, headers: auth });
report('List collections', listBaseline, [list]);

const createBaseline = await measure('bare node:http, same key check, insert and JSON', {
  url: bare.url,
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: createBody,
});
const create = await measure('POST /v1/collections', {
  url: `${app.url}/v1/collections`,
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: createBody,
});
report('Create collection', createBaseline, [create]);

await bare.close();
await app.close();
