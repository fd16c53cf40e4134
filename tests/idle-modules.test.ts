/**
 * The built server on the default configuration (SQLite, local disk, sandbox payments, the
 * in-process worker, no tracing, Redis or SMTP) loads none of the heavy optional packages while
 * idle: each is loaded by the adapter that needs it, when configured, or by the first request
 * that uses it (ARCHITECTURE.md, "Start and stop"). Checked by the files the process loads (a
 * loader hook preloaded with `--import`), not by a memory figure, which other processes on the
 * machine would make flaky; `npm run bench -- memory` measures the memory itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort } from './helpers/app.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-idle-'));
const moduleLog = path.join(tmp, 'modules.log');
let server: ChildProcess | null = null;
let url = '';
let output = '';

/** Packages an idle default server must not load (each costs 10-30 MB of resident memory). */
const OPTIONAL = [
  '@aws-sdk/client-s3',
  '@aws-sdk/s3-request-presigner',
  'stripe',
  '@modelcontextprotocol/sdk',
  'zod',
  'ioredis',
  'pg',
  'nodemailer',
  'mppx',
  '@opentelemetry/sdk-trace-node',
  '@fastify/otel',
  'pino-pretty',
  'esbuild',
  'openid-client',
  '@node-saml/node-saml',
];
const loaded = (name: string) =>
  fs
    .readFileSync(moduleLog, 'utf8')
    .split('\n')
    .some((file) => file.includes(`/node_modules/${name}/`));

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  fs.writeFileSync(moduleLog, '');
  // Only what the default configuration needs: none of the test run's own settings (DATABASE_URL…).
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmp,
    NODE_ENV: 'production',
    PAYMENTS_SANDBOX: 'true',
    MAIL_TRANSPORT: 'log',
    LOG_LEVEL: 'warn',
    DATA_DIR: path.join(tmp, 'data'),
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: url,
    MODULE_LOG: moduleLog,
  };
  const hook = path.resolve('tests/helpers/module-log.mjs');
  server = spawn(process.execPath, ['--import', hook, 'scripts/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout?.on('data', (chunk) => (output += chunk));
  server.stderr?.on('data', (chunk) => (output += chunk));
  const deadline = Date.now() + 240_000; // scripts/start.mjs builds dist/ first when src/ is newer
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited: ${output}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  // Real time on purpose: idle is time passing. The worker's first poll runs, and each frequent
  // periodic task at least once (webhook deliveries every 500 ms, mail every 2 s).
  await new Promise((resolve) => setTimeout(resolve, 2_500));
}, 300_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(tmp, { recursive: true, force: true });
});

it('loads no optional heavy package while idle on the default configuration', async () => {
  // The log works for both module systems: fastify is an ES import, `avvio` a require inside fastify.
  expect(loaded('fastify')).toBe(true);
  expect(loaded('avvio')).toBe(true);
  expect(OPTIONAL.filter(loaded)).toEqual([]);
});

it('loads the MCP SDK with the first /mcp request, and answers it', async () => {
  const answer = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    }),
  });
  expect(answer.status).toBe(200);
  expect(((await answer.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('voicename');
  expect(loaded('@modelcontextprotocol/sdk')).toBe(true);
});
