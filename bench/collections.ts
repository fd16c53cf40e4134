/**
 * `GET /v1/collections?limit=50` and `POST /v1/collections` through the whole stack (auth, rate
 * limit, validation, SQLite), against a bare node:http server answering the same JSON.
 * Run: npm run bench (all benchmarks) or npx tsx bench/collections.ts
 */
import { createCollection, listCollections } from '../src/features/collections/service.js';
import { bareServer, benchAccount, benchApp, measure, report } from './lib.js';

let key = '';
let page = '';
let one = '';
const app = await benchApp(async (deps) => {
  const { key: created, accountId } = await benchAccount(deps, 'bench@example.com');
  key = created;
  const account = { id: accountId };
  for (let i = 0; i < 200; i++) await createCollection(deps, account.id, { name: `Collection ${i}`, description: 'bench' });
  page = JSON.stringify(await listCollections(deps, account.id, { limit: 50 }));
  one = JSON.stringify((await listCollections(deps, account.id, { limit: 1 })).data[0]);
});
const auth = { authorization: `Bearer ${key}` };
const createBody = JSON.stringify({ name: 'Bench collection', description: 'created under load' });

const bareList = await bareServer({ status: 200, headers: { 'content-type': 'application/json' }, body: page });
const bareCreate = await bareServer({ status: 201, headers: { 'content-type': 'application/json' }, body: one });

const listBaseline = await measure('bare node:http, same 50-item JSON', { url: bareList.url });
const list = await measure('GET /v1/collections?limit=50', { url: `${app.url}/v1/collections?limit=50`, headers: auth });
report('List collections', listBaseline, [list]);

const createBaseline = await measure('bare node:http, same 201 JSON', { url: bareCreate.url, method: 'POST', body: createBody });
const create = await measure('POST /v1/collections', {
  url: `${app.url}/v1/collections`,
  method: 'POST',
  headers: { ...auth, 'content-type': 'application/json' },
  body: createBody,
});
report('Create collection', createBaseline, [create]);

await bareList.close();
await bareCreate.close();
await app.close();
