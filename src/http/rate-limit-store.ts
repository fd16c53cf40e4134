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

/** ioredis is loaded only when REDIS_URL is set: its resident memory is paid only where used (docs/performance.md). */
const loadIoredis = () => createRequire(import.meta.url)('ioredis') as typeof import('ioredis');

const CONNECT_TIMEOUT_MS = 2_000;

/** One taken unit of a budget: whether it was within the limit, how many are left, and when the window ends. */
export interface BudgetTake {
  allowed: boolean;
  remaining: number;
  retryAfterSeconds: number;
}

/**
 * A per-key budget of `max` units per window, counted where the store counts (Redis or memory).
 * Unlike the plugin's limits, it is not tied to one HTTP request: a caller takes one unit per
 * costly operation, so several routes (or the calls of one MCP batch) draw from one count.
 */
export interface Budget {
  take(key: string): Promise<BudgetTake>;
}

export interface RateLimitStore {
  /** Options for `@fastify/rate-limit`: the shared store and this limit's own key prefix. */
  options(name: string): { redis?: Redis; nameSpace: string; skipOnError: boolean };
  /** A budget named `name` (its own key prefix), shared by every caller that asks for the same name. */
  budget(name: string, limit: { max: number; windowMs: number }): Budget;
  /**
   * Resolves once Redis answers (or after the connect timeout, when it is away): the app waits for
   * it before serving, so a starting process counts its first requests instead of letting them by.
   */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** INCR and the window's expiry in one step, so concurrent takes across processes count exactly. */
const TAKE_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {current, ttl}
`;

const toTake = (count: number, max: number, ttlMs: number): BudgetTake => ({
  allowed: count <= max,
  remaining: Math.max(0, max - count),
  retryAfterSeconds: Math.max(1, Math.ceil(ttlMs / 1000)),
});

/** Fixed windows per key; expired keys are dropped when the map grows, so memory stays bounded. */
function memoryBudget(
  limit: { max: number; windowMs: number },
  windows: Map<string, { count: number; endsAt: number }>,
  name: string,
): Budget {
  return {
    take: async (key) => {
      const now = Date.now();
      const id = `${name}:${key}`;
      let window = windows.get(id);
      if (!window || window.endsAt <= now) {
        if (windows.size >= 10_000) for (const [k, w] of windows) if (w.endsAt <= now) windows.delete(k);
        window = { count: 0, endsAt: now + limit.windowMs };
        windows.set(id, window);
      }
      window.count += 1;
      return toTake(window.count, limit.max, window.endsAt - now);
    },
  };
}

export function createRateLimitStore(redisUrl: string | null, logger: Logger): RateLimitStore {
  const memoryBudgets = new Map<string, { count: number; endsAt: number }>();
  if (redisUrl === null) {
    return {
      options: (name) => ({ nameSpace: `${name}:`, skipOnError: true }),
      budget: (name, limit) => memoryBudget(limit, memoryBudgets, name),
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
    budget: (name, limit) => ({
      take: async (key) => {
        try {
          const [count, ttl] = (await redis.eval(TAKE_SCRIPT, 1, `voicename-rate:${name}:${key}`, limit.windowMs)) as [
            number,
            number,
          ];
          return toTake(count, limit.max, ttl);
        } catch {
          // Let it through, as the plugin's limits do (skipOnError); the 'error' listener has logged it.
          return { allowed: true, remaining: limit.max, retryAfterSeconds: Math.ceil(limit.windowMs / 1000) };
        }
      },
    }),
    ready: () => connected,
    close: async () => {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
