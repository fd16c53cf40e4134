/**
 * Where rate limits are counted. With `REDIS_URL`, in Redis, so every API process shares one
 * count (the rate-limit plugin's own Redis store, through ioredis); without it, in each
 * process's memory, which is exact for one process and N times the limit for N processes.
 *
 * When Redis does not answer, requests are let through (and the failure logged) rather than
 * refused: a rate limit protects the service, and refusing every request would be the outage.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

export interface RateLimitStore {
  /** Options for `@fastify/rate-limit`: the shared store and this limit's own key prefix. */
  options(name: string): { redis?: Redis; nameSpace: string; skipOnError: boolean };
  close(): Promise<void>;
}

export function createRateLimitStore(redisUrl: string | null, logger: Logger): RateLimitStore {
  if (redisUrl === null) {
    return { options: (name) => ({ nameSpace: `${name}:`, skipOnError: true }), close: async () => {} };
  }
  // Recommended by the plugin: fail fast instead of queueing commands while Redis is away.
  const redis = new Redis(redisUrl, {
    connectTimeout: 2_000,
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
  return {
    options: (name) => ({ redis, nameSpace: `voicename-rate:${name}:`, skipOnError: true }),
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
