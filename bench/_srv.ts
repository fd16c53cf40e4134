import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createDeps } from '../src/deps.js';

const config = loadConfig({
  NODE_ENV: 'production',
  LOG_LEVEL: 'silent',
  DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'p-')),
  RUN_WORKER: 'false',
});
const deps = createDeps(config);
await migrateToLatest(deps.db);
const app = await buildApp(deps);
await app.listen({ port: 45678, host: '127.0.0.1' });
setTimeout(() => process.exit(0), 9000);
