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
  /** Entity generation: `stripe` when STRIPE_SECRET_KEY is set, otherwise the built-in `sandbox`. */
  paymentProvider: 'sandbox' | 'stripe';
  stripeSecretKey: string | null;
  stripePublishableKey: string | null;
  /** Where the Stripe SDK sends requests (tests point it at a local fake); null = Stripe's own API. */
  stripeApi: { host: string; port: number; protocol: 'http' | 'https' } | null;
  /** Seconds a payment instruction (402) stays payable before it is cancelled. */
  entityInstructionTtlSeconds: number;
  /** Seconds after expiry before a paid but never-claimed intent is refunded. */
  entityRefundGraceSeconds: number;
  /** Unpaid (intent-creating) requests per minute per client address. */
  entityUnpaidRateLimitPerMinute: number;
  /** Base64 PKCS#8 DER Ed25519 private key for callback signatures; null = generated under DATA_DIR. */
  entitySigningKey: string | null;
  /** Allow http:// and private-network targets for outbound calls (local development and tests only). */
  webhookAllowPrivateUrls: boolean;
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

function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === '' ? null : value;
}

function stripeApi(env: Env): Config['stripeApi'] {
  const host = optional(env, 'STRIPE_API_HOST');
  if (host === null) return null;
  const protocol = str(env, 'STRIPE_API_PROTOCOL', 'https');
  if (protocol !== 'http' && protocol !== 'https')
    throw new ConfigError(`STRIPE_API_PROTOCOL must be http or https, got "${protocol}"`);
  return { host, port: int(env, 'STRIPE_API_PORT', protocol === 'https' ? 443 : 80, 1, 65535), protocol };
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
    paymentProvider: optional(env, 'STRIPE_SECRET_KEY') === null ? 'sandbox' : 'stripe',
    stripeSecretKey: optional(env, 'STRIPE_SECRET_KEY'),
    stripePublishableKey: optional(env, 'STRIPE_PUBLISHABLE_KEY'),
    stripeApi: stripeApi(env),
    entityInstructionTtlSeconds: int(env, 'ENTITY_INSTRUCTION_TTL_SECONDS', 1800, 60, 7 * 86400),
    entityRefundGraceSeconds: int(env, 'ENTITY_REFUND_GRACE_SECONDS', 3600, 0, 30 * 86400),
    entityUnpaidRateLimitPerMinute: int(env, 'ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000),
    entitySigningKey: optional(env, 'ENTITY_SIGNING_KEY'),
    webhookAllowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
  };
}
