/**
 * The only module that reads `process.env`. Settings are parsed and validated once at boot;
 * everything else receives the resulting `Config` object. A bad value stops the process with
 * a message naming the variable, instead of failing later in some request.
 */
import path from 'node:path';

export type DatabaseConfig = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  baseUrl: string;
  siteUrl: string;
  logLevel: string;
  /** Run the background worker inside the HTTP server process. */
  runWorker: boolean;
  /** Requests per minute allowed for one API key on /v1. */
  rateLimitPerMinute: number;
  /** Largest accepted JSON request body, in bytes. */
  jsonBodyLimit: number;
  trustProxy: boolean;
  /** Public play links: cache lifetime of a resolved token, push interval of play counts, audio redirects. */
  playLinks: PlayLinkConfig;
}

export interface PlayLinkConfig {
  /** How long one process trusts a resolved token (ms); bounds staleness across processes. 0 disables the cache. */
  cacheTtlMs: number;
  /** Upper bound on resolved tokens kept in memory. */
  cacheMaxEntries: number;
  /** How often in-memory play counts are written to the database (ms). */
  countFlushMs: number;
  /** When set, `/p/<token>.mp3` redirects to `<this>/<blob key>` (a CDN or public bucket) instead of the app. */
  audioPublicBaseUrl: string | null;
  /** Lifetime of presigned audio URLs when the blob store signs them (S3). */
  audioUrlTtlSeconds: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function str(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function url(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function database(env: Env, dataDir: string): DatabaseConfig {
  const raw = env.DATABASE_URL;
  if (raw === undefined || raw === '') return { dialect: 'sqlite', file: path.join(dataDir, 'voicename.db') };
  if (/^postgres(ql)?:\/\//.test(raw)) return { dialect: 'postgres', url: raw };
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    if (file === '') throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/app.db');
    return { dialect: 'sqlite', file };
  }
  throw new ConfigError('DATABASE_URL must start with postgres:// or sqlite:');
}

function playLinks(env: Env): PlayLinkConfig {
  const config: PlayLinkConfig = {
    cacheTtlMs: int(env, 'PLAY_LINK_CACHE_TTL_MS', 5_000, 0, 3_600_000),
    cacheMaxEntries: int(env, 'PLAY_LINK_CACHE_MAX_ENTRIES', 100_000, 1, 10_000_000),
    countFlushMs: int(env, 'PLAY_COUNT_FLUSH_MS', 10_000, 100, 3_600_000),
    audioPublicBaseUrl: env.AUDIO_PUBLIC_BASE_URL ? url('AUDIO_PUBLIC_BASE_URL', env.AUDIO_PUBLIC_BASE_URL) : null,
    audioUrlTtlSeconds: int(env, 'AUDIO_URL_TTL_SECONDS', 3_600, 60, 604_800),
  };
  // A cached redirect must never point at a presigned URL that has expired.
  if (config.cacheTtlMs * 2 > config.audioUrlTtlSeconds * 1000) {
    throw new ConfigError('PLAY_LINK_CACHE_TTL_MS must be at most half of AUDIO_URL_TTL_SECONDS (in ms)');
  }
  return config;
}

export function loadConfig(env: Env = process.env): Config {
  const nodeEnv = str(env, 'NODE_ENV', 'development');
  if (nodeEnv !== 'development' && nodeEnv !== 'production' && nodeEnv !== 'test') {
    throw new ConfigError(`NODE_ENV must be development, production or test, got "${nodeEnv}"`);
  }
  const port = int(env, 'PORT', 3000, 0, 65535);
  const dataDir = path.resolve(str(env, 'DATA_DIR', './data'));
  const baseUrl = url('BASE_URL', str(env, 'BASE_URL', `http://localhost:${port}`));
  return {
    env: nodeEnv,
    port,
    host: str(env, 'HOST', '0.0.0.0'),
    dataDir,
    database: database(env, dataDir),
    baseUrl,
    siteUrl: url('SITE_URL', str(env, 'SITE_URL', baseUrl)),
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    runWorker: bool(env, 'RUN_WORKER', true),
    rateLimitPerMinute: int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000),
    jsonBodyLimit: int(env, 'JSON_BODY_LIMIT', 1_048_576, 1024, 104_857_600),
    trustProxy: bool(env, 'TRUST_PROXY', false),
    playLinks: playLinks(env),
  };
}
