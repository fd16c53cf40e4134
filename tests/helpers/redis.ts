/**
 * A Redis server for tests: REDIS_TEST_URL when set (CI starts one for both passes), otherwise a
 * `redis-server` started here on a free loopback port with nothing written to disk. Each call
 * gets its own database number, so files running at once do not share keys.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { freePort } from './app.js';

export interface TestRedis {
  url: string;
  close(): Promise<void>;
}

const CANDIDATES = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'];
let nextDb = Number(process.env.VITEST_POOL_ID ?? 0) % 16;

/** The redis-server binary, or null when this machine has none (and REDIS_TEST_URL is unset). */
export function redisAvailable(): boolean {
  return Boolean(process.env.REDIS_TEST_URL) || CANDIDATES.some((file) => fs.existsSync(file));
}

export async function startTestRedis(): Promise<TestRedis> {
  const db = nextDb++ % 16;
  const given = process.env.REDIS_TEST_URL;
  if (given) return { url: `${given.replace(/\/\d*$/, '')}/${db}`, close: async () => {} };
  const binary = CANDIDATES.find((file) => fs.existsSync(file));
  if (!binary) throw new Error('no redis-server: set REDIS_TEST_URL or install redis-server');
  const port = await freePort();
  const child: ChildProcess = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}/${db}`,
    close: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
