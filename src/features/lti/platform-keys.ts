/**
 * The platforms' public key sets, fetched through the SSRF-safe outbound client and kept per
 * process: five minutes, or until a token names a key the cached set lacks (then fetched again,
 * at most every 30 seconds per URL, so forged key ids cannot make us hammer a platform).
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../errors.js';
import { type HostLookup, sendOutbound } from '../../integrations/outbound-http.js';
import type { Clock } from '../../lib/clock.js';

const FRESH_MS = 5 * 60_000;
const REFETCH_AFTER_MS = 30_000;
const MAX_KEY_SET_BYTES = 256 * 1024;

interface Cached {
  keySet: JSONWebKeySet;
  verify: JWTVerifyGetKey;
  fetchedAt: number;
}

export interface PlatformKeySets {
  /** The key set of `url`, fetched or cached; `kid` a key id the caller needs (a miss refetches). */
  get(url: string, kid: string | undefined): Promise<JWTVerifyGetKey>;
}

export function createPlatformKeySets(options: {
  clock: Clock;
  allowPrivate: boolean;
  proxyUrl?: string | null;
  /** Resolver override (tests; production never sets it). */
  lookup?: HostLookup;
  /** The only CA (PEM) trusted for the platform's certificate, instead of the system's (tests). */
  trustedCa?: string;
}): PlatformKeySets {
  const cache = new Map<string, Cached>();

  async function fetchKeySet(url: string): Promise<Cached> {
    const unavailable = (why: string, cause?: unknown) =>
      new AppError('lti_platform_unavailable', `The platform's key set could not be read (${why}).`, { cause });
    let response;
    try {
      response = await sendOutbound({
        url,
        method: 'GET',
        headers: { accept: 'application/json' },
        allowPrivate: options.allowPrivate,
        proxyUrl: options.proxyUrl ?? null,
        maxBodyBytes: MAX_KEY_SET_BYTES,
        timeoutMs: 10_000,
        ...(options.lookup ? { lookup: options.lookup } : {}),
        ...(options.trustedCa ? { tls: { ca: options.trustedCa } } : {}),
      });
    } catch (error) {
      throw unavailable((error as Error).message, error);
    }
    if (response.status !== 200 || response.truncated) throw unavailable(`status ${response.status}`);
    let keySet: JSONWebKeySet;
    try {
      keySet = JSON.parse(response.bodySnippet) as JSONWebKeySet;
      if (!Array.isArray(keySet.keys)) throw new Error('no keys');
    } catch (error) {
      throw unavailable('not a JSON key set', error);
    }
    const entry = { keySet, verify: createLocalJWKSet(keySet), fetchedAt: options.clock.now().getTime() };
    cache.set(url, entry);
    return entry;
  }

  return {
    async get(url, kid) {
      const now = options.clock.now().getTime();
      let entry = cache.get(url);
      if (!entry || now - entry.fetchedAt > FRESH_MS) entry = await fetchKeySet(url);
      const known = kid === undefined || entry.keySet.keys.some((key) => key.kid === kid);
      if (!known && now - entry.fetchedAt > REFETCH_AFTER_MS) entry = await fetchKeySet(url);
      return entry.verify;
    },
  };
}
