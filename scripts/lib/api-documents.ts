/**
 * The API documents exactly as the app serves them (`/v1/openapi.json` and the agent API's
 * `/openapi.json`), from an app built in-process on a throwaway SQLite database that never
 * listens: generating or linting them needs no running server and no settings.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { closeDeps, createDeps } from '../../src/deps.js';

export interface ApiDocuments {
  v1: Record<string, unknown>;
  agent: Record<string, unknown>;
}

export async function loadApiDocuments(baseUrl = 'http://localhost:3000'): Promise<ApiDocuments> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-documents-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, BASE_URL: baseUrl, LOG_LEVEL: 'warn' });
  const deps = createDeps(config);
  try {
    await migrateToLatest(deps.db);
    const app = await buildApp(deps);
    try {
      await app.ready();
      const get = async (url: string) => (await app.inject({ url })).json<Record<string, unknown>>();
      return { v1: await get('/v1/openapi.json'), agent: await get('/openapi.json') };
    } finally {
      await app.close();
    }
  } finally {
    await closeDeps(deps);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
