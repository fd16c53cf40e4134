/**
 * Builds the real application on a fresh database for one test file, and gives tests a few
 * conveniences: API keys for new accounts, and JSON requests through `app.inject` (which skips
 * the play-link fast path; see `request`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createDeps, type Deps, type DepsOverrides } from '../../src/deps.js';
import { createApiKey } from '../../src/features/api-keys/service.js';
import type { Clock } from '../../src/lib/clock.js';
import { randomToken } from '../../src/lib/ids.js';
import { installContractCheck } from './contract.js';
import { createTestDatabase, type TestDatabase } from './database.js';

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  config: Config;
  database: TestDatabase;
  /** Creates a new account with a fresh API key; returns the plaintext key and ids. */
  newAccount(email?: string): Promise<{ key: string; keyId: string; email: string }>;
  /**
   * A JSON request with `Authorization: Bearer <key>` when `key` is given, through `app.inject`.
   * `inject` enters Fastify's routing directly and so skips the node:http fast path of cached
   * `/p/<token>.mp3` redirects (src/features/play-links/fast-path.ts): test that path over a real
   * connection with `startTestServer` and `fetch`.
   */
  request(options: InjectOptions & { key?: string; json?: unknown }): Promise<LightMyRequestResponse>;
  /**
   * Environment for child processes (CLI, workers) that must use this app's database, data
   * directory and URLs. Vitest puts Vite's BASE_URL ("/") into process.env; this replaces it.
   */
  childEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  clock?: Clock;
  overrides?: Omit<DepsOverrides, 'db' | 'clock'>;
  /** An existing, migrated database to serve (default: a fresh one); closed and dropped with the app. */
  database?: TestDatabase;
  /**
   * `false` leaves out the contract check of every response (tests/helpers/contract.ts), for
   * timing tests: it parses and validates each body on the event loop, which is the test's work,
   * not the service's.
   */
  contractCheck?: false;
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-data-'));
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, BASE_URL: 'http://localhost:3000', ...options.env });
  config.database = database.config;
  const deps = createDeps(config, { ...options.overrides, db: database.db, ...(options.clock ? { clock: options.clock } : {}) });
  const app = await buildApp(deps);
  if (options.contractCheck !== false) installContractCheck(app);
  await app.ready();
  return {
    app,
    deps,
    config,
    database,
    async newAccount(email = `user-${randomToken(6).toLowerCase()}@example.com`) {
      const created = await createApiKey(deps, { accountEmail: email });
      return { key: created.key, keyId: created.id, email: created.account };
    },
    childEnv(extra = {}) {
      return {
        ...process.env,
        ...database.env,
        NODE_ENV: 'test',
        DATA_DIR: dataDir,
        BASE_URL: config.baseUrl,
        SITE_URL: config.siteUrl,
        ...extra,
      };
    },
    request({ key, json, headers, ...rest }) {
      return app.inject({
        ...rest,
        headers: {
          ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
          ...(json === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(json === undefined ? {} : { payload: JSON.stringify(json) }),
      });
    },
    async close() {
      await app.close();
      // What closeDeps closes besides the database (which drop() closes).
      await deps.notifications.close();
      await deps.rateLimits.close();
      await deps.cards.renderer.close();
      await database.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A free TCP port on loopback (for tests that need a real listening server). */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * The app listening on a real loopback port, with BASE_URL and SITE_URL pointing at it,
 * for browsers, external HTTP clients and benchmarks.
 */
export async function startTestServer(options: TestAppOptions = {}): Promise<TestApp & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ ...options, env: { BASE_URL: url, SITE_URL: url, ...options.env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(t, { url });
}
