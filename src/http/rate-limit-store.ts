/**
 * Where rate limits are counted. With `REDIS_URL`, in Redis, so every API process shares one
 * count (the rate-limit plugin's own Redis store, through ioredis); without it, in each
 * process's memory, which is exact for one process and N times the limit for N processes.
 *
 * When Redis does not answer, requests are let through (and the failure logged) rather than
 * refused: a rate limit protects the service, and refusing every request would be the outage.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** ioredis (about 10 MB of resident memory) is loaded only when REDIS_URL is set. */
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

const CONNECT_TIMEOUT_MS = 2_000;

export interface RateLimitStore {
  /** Options for `@fastify/rate-limit`: the shared store and this limit's own key prefix. */
  options(name: string): { redis?: Redis; nameSpace: string; skipOnError: boolean };
  /**
   * Resolves once Redis answers (or after the connect timeout, when it is away): the app waits for
   * it before serving, so a starting process counts its first requests instead of letting them by.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export function createRateLimitStore(redisUrl: string | null, logger: Logger): RateLimitStore {
  if (redisUrl === null) {
    return {
      options: (name) => ({ nameSpace: `${name}:`, skipOnError: true }),
      ready: async () => {},
      close: async () => {},
    };
  }
  // Recommended by the plugin: fail fast instead of queueing commands while Redis is away.
  const { Redis } = loadIoredis();
  const redis = new Redis(redisUrl, {
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: false,
  });
  let warned = false;
  redis.on('error', (err: Error) => {
    if (warned) return;
    warned = true;
    logger.error({ err }, 'rate limits: Redis is not answering; requests are let through until it is back');
  });
  redis.on('ready', () => {
    warned = false;
  });
  const connected = new Promise<void>((resolve) => {
    if (redis.status === 'ready') return resolve();
    const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS);
    timer.unref();
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    options: (name) => ({ redis, nameSpace: `voicename-rate:${name}:`, skipOnError: true }),
    ready: () => connected,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
