/**
 * The only module that reads `process.env`. Settings are parsed and validated once at boot;
 * everything else receives the resulting `Config` object. A bad value stops the process with
 * a message naming the variable, instead of failing later in some request.
 */
import os from 'node:os';
import path from 'node:path';
import type {
  DatabaseConfig,
  Config,
  PlayLinkConfig,
  DashboardConfig,
  WebhookConfig,
  BlobConfig,
  X402Config,
} from './config-types.js';
import { bool, ConfigError, duration, type Env, int, optional, str, url } from './config-values.js';
import { SPEECH_ENGINES } from './speech/index.js';

export { ConfigError };

export type { Config, DatabaseConfig, WebhookConfig } from './config-types.js';

function paymentProvider(env: Env, nodeEnv: Config['env']): Config['paymentProvider'] {
  const sandbox = bool(env, 'PAYMENTS_SANDBOX', false);
  if (optional(env, 'STRIPE_SECRET_KEY') !== null) {
    if (sandbox) throw new ConfigError('PAYMENTS_SANDBOX=true and STRIPE_SECRET_KEY are both set: choose one');
    return 'stripe';
  }
  // The sandbox confirms payments without taking money: in production only when asked for by name.
  if (nodeEnv === 'production' && !sandbox) {
    throw new ConfigError(
      'NODE_ENV=production needs STRIPE_SECRET_KEY for paid agent profiles; set PAYMENTS_SANDBOX=true to run the built-in sandbox (profiles are then published for free)',
    );
  }
  return 'sandbox';
}

/**
 * Settings in force that are fine on a developer's machine and risky anywhere else; the server
 * and workers log one warning line for each at start.
 */
export function riskySettings(config: Config): string[] {
  const risky: string[] = [];
  if (config.paymentProvider === 'sandbox') {
    risky.push('payments: the built-in sandbox processor is in use; agent profiles are published without real payment');
  }
  if (config.dashboard.smtpUrl === null) {
    risky.push(
      config.env === 'production'
        ? 'mail: MAIL_TRANSPORT=log; sign-in links are written to the log, not sent'
        : 'mail: no SMTP_URL; sign-in links are written to the log and shown in the development mailbox (loopback clients only)',
    );
  }
  if (config.webhooks.allowPrivateUrls) {
    risky.push(
      'webhooks: WEBHOOK_ALLOW_PRIVATE_URLS=true; webhooks and callbacks may reach private and loopback addresses (no SSRF protection)',
    );
  }
  if (config.env !== 'production' && !['127.0.0.1', '::1', 'localhost'].includes(config.host)) {
    risky.push(`network: NODE_ENV=${config.env} but HOST=${config.host}; development settings are reachable from other machines`);
  }
  return risky;
}

const X402_SETTINGS = ['X402_NETWORK', 'X402_ASSET', 'X402_PAY_TO', 'X402_FACILITATOR_URL', 'X402_AUD_RATE'] as const;
/** Test chains (Base Sepolia, Ethereum Sepolia, Avalanche Fuji, Polygon Amoy): their tokens are worth nothing. */
const X402_TEST_NETWORKS = ['eip155:84532', 'eip155:11155111', 'eip155:43113', 'eip155:80002'];
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/**
 * x402 is all-or-nothing: a partial set would offer a payment nobody can settle. The rate is
 * explicit (token units per 1.00 AUD) because a token's AUD value is a business decision, and
 * production refuses a test network, where the tokens cost nothing, unless X402_ALLOW_TEST_NETWORK=true.
 */
function x402Settlement(env: Env, nodeEnv: Config['env']): X402Config | null {
  const missing = X402_SETTINGS.filter((name) => optional(env, name) === null);
  if (missing.length === X402_SETTINGS.length) return null;
  if (missing.length > 0) throw new ConfigError(`x402 needs all of ${X402_SETTINGS.join(', ')}; missing ${missing.join(', ')}`);
  const network = str(env, 'X402_NETWORK', '');
  if (!/^eip155:[1-9][0-9]{0,18}$/.test(network)) {
    throw new ConfigError(`X402_NETWORK must be a CAIP-2 EVM network id such as eip155:8453, got "${network}"`);
  }
  if (nodeEnv === 'production' && X402_TEST_NETWORKS.includes(network) && !bool(env, 'X402_ALLOW_TEST_NETWORK', false)) {
    throw new ConfigError(
      `X402_NETWORK=${network} is a test network (tokens without value); set X402_ALLOW_TEST_NETWORK=true to use it in production`,
    );
  }
  const asset = str(env, 'X402_ASSET', '');
  const payTo = str(env, 'X402_PAY_TO', '');
  if (!EVM_ADDRESS.test(asset))
    throw new ConfigError(`X402_ASSET must be a token contract address (0x + 40 hex), got "${asset}"`);
  if (!EVM_ADDRESS.test(payTo)) throw new ConfigError(`X402_PAY_TO must be an address (0x + 40 hex), got "${payTo}"`);
  const rate = str(env, 'X402_AUD_RATE', '');
  if (!/^[1-9][0-9]{0,30}$/.test(rate)) {
    throw new ConfigError(`X402_AUD_RATE must be a whole number of token units per 1.00 AUD (e.g. 650000), got "${rate}"`);
  }
  return {
    network,
    asset,
    assetName: str(env, 'X402_ASSET_NAME', 'USDC'),
    assetVersion: str(env, 'X402_ASSET_VERSION', '2'),
    payTo,
    facilitatorUrl: url('X402_FACILITATOR_URL', str(env, 'X402_FACILITATOR_URL', '')),
    audRate: BigInt(rate),
  };
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

function blobs(env: Env): BlobConfig {
  const store = str(env, 'BLOB_STORE', 'disk');
  if (store === 'disk') return { store: 'disk' };
  if (store !== 's3') throw new ConfigError(`BLOB_STORE must be disk or s3, got "${store}"`);
  const bucket = str(env, 'S3_BUCKET', '');
  if (bucket === '') throw new ConfigError('S3_BUCKET is required when BLOB_STORE=s3');
  const accessKeyId = str(env, 'S3_ACCESS_KEY_ID', '');
  const secretAccessKey = str(env, 'S3_SECRET_ACCESS_KEY', '');
  if ((accessKeyId === '') !== (secretAccessKey === '')) {
    throw new ConfigError('Set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (to use the AWS default chain)');
  }
  const endpoint = str(env, 'S3_ENDPOINT', '');
  return {
    store: 's3',
    bucket,
    endpoint: endpoint === '' ? null : url('S3_ENDPOINT', endpoint),
    region: str(env, 'S3_REGION', 'us-east-1'),
    accessKeyId: accessKeyId || null,
    secretAccessKey: secretAccessKey || null,
    forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== ''),
  };
}

// No coupling between PLAY_LINK_CACHE_TTL_MS and AUDIO_URL_TTL_SECONDS: a cached presigned URL is signed
// again at half its lifetime, however long the entry lives (play-links/cache.ts).
function playLinks(env: Env): PlayLinkConfig {
  return {
    cacheTtlMs: int(env, 'PLAY_LINK_CACHE_TTL_MS', 300_000, 0, 86_400_000),
    cacheMaxEntries: int(env, 'PLAY_LINK_CACHE_MAX_ENTRIES', 100_000, 1, 10_000_000),
    countFlushMs: int(env, 'PLAY_COUNT_FLUSH_MS', 10_000, 100, 3_600_000),
    audioPublicBaseUrl: env.AUDIO_PUBLIC_BASE_URL ? url('AUDIO_PUBLIC_BASE_URL', env.AUDIO_PUBLIC_BASE_URL) : null,
    audioUrlTtlSeconds: int(env, 'AUDIO_URL_TTL_SECONDS', 3_600, 60, 604_800),
  };
}

/** `TWITTER_SITE`: an X/Twitter handle, `@` and 1-15 letters, digits or underscores. */
function twitterHandle(env: Env): string | null {
  const raw = optional(env, 'TWITTER_SITE');
  if (raw === null) return null;
  if (!/^@\w{1,15}$/.test(raw)) throw new ConfigError(`TWITTER_SITE must be a handle like @voicename, got "${raw}"`);
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  /**
   * One setting (or group) parsed; a refusal is noted and `fallback` stands in for it, so the
   * settings read after it are still checked. Nothing is returned while a problem is noted.
   */
  const read = <T>(parse: () => T, fallback?: T): T => {
    try {
      return parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return fallback as T;
    }
  };
  const nodeEnv = read((): Config['env'] => {
    const value = str(env, 'NODE_ENV', 'development');
    if (value !== 'development' && value !== 'production' && value !== 'test') {
      throw new ConfigError(`NODE_ENV must be development, production or test, got "${value}"`);
    }
    return value;
  }, 'development');
  const port = read(() => int(env, 'PORT', 3000, 0, 65535), 3000);
  const dataDir = path.resolve(str(env, 'DATA_DIR', './data'));
  const baseUrl = read(() => {
    // Links in mail, play links and the API document are built from it: localhost is never right in production.
    if (nodeEnv === 'production' && optional(env, 'BASE_URL') === null) {
      throw new ConfigError(
        'NODE_ENV=production needs BASE_URL, the public address people reach this service at (e.g. https://voicename.example.com)',
      );
    }
    return url('BASE_URL', str(env, 'BASE_URL', `http://localhost:${port}`));
  }, `http://localhost:${port}`);
  const audioConcurrency = read(() => int(env, 'AUDIO_CONCURRENCY', Math.max(1, os.availableParallelism()), 1, 256), 1);
  const audioQueuePerAccount = read(() => int(env, 'AUDIO_QUEUE_PER_ACCOUNT', 50, 1, 100_000), 50);
  const config: Config = {
    env: nodeEnv,
    port,
    host: str(env, 'HOST', nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1'),
    dataDir,
    database: read(() => database(env, dataDir)),
    baseUrl,
    siteUrl: read(() => url('SITE_URL', str(env, 'SITE_URL', baseUrl))),
    logLevel: str(env, 'LOG_LEVEL', nodeEnv === 'test' ? 'silent' : 'info'),
    logFormat: read(() => logFormat(env, nodeEnv)),
    keepAliveTimeoutMs: read(() => int(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1_000, 3_600_000)),
    shutdownDelayMs: read(() => int(env, 'SHUTDOWN_DELAY_MS', 0, 0, 120_000)),
    otelEndpoint: optional(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    requestTimeoutMs: read(() => int(env, 'REQUEST_TIMEOUT_MS', 30_000, 1_000, 600_000)),
    uploadTimeoutMs: read(() => int(env, 'UPLOAD_TIMEOUT_MS', 120_000, 1_000, 3_600_000)),
    runWorker: read(() => bool(env, 'RUN_WORKER', true)),
    rateLimitPerMinute: read(() => int(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, 1_000_000)),
    jsonBodyLimit: read(() => int(env, 'JSON_BODY_LIMIT', 1_048_576, 1024, 104_857_600)),
    trustProxy: read(() => bool(env, 'TRUST_PROXY', false)),
    redisUrl: read(() => redisUrl(env)),
    archiveRetentionDays: read(() => int(env, 'ARCHIVE_RETENTION_DAYS', 30, 1, 3650)),
    ...read(() => metricsConfig(env), { metricsToken: null, metricsPort: null }),
    ffmpegPath: str(env, 'FFMPEG_PATH', '') || null,
    audioTimeoutMs: read(() => int(env, 'AUDIO_TIMEOUT_MS', 20_000, 1_000, 600_000)),
    audioMaxMemoryMb: read(() => int(env, 'AUDIO_MAX_MEMORY_MB', 512, 384, 1_048_576)),
    audioConcurrency,
    // Room for several accounts' bursts at once: one account alone never fills the line.
    audioQueueMax: read(() => int(env, 'AUDIO_QUEUE_MAX', 4 * audioQueuePerAccount, 0, 400_000)),
    audioQueuePerAccount,
    blobs: read(() => blobs(env)),
    recorderRateLimitPerMinute: read(() => int(env, 'RECORDER_RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000)),
    imageRateLimitPerMinute: read(() => int(env, 'IMAGE_RATE_LIMIT_PER_MINUTE', 120, 1, 1_000_000)),
    twitterSite: read(() => twitterHandle(env)),
    webhooks: read(() => webhookConfig(env)),
    paymentProvider: read(() => paymentProvider(env, nodeEnv)),
    speechEngine: read(() => speechEngine(env)),
    warmUp: read(() => bool(env, 'WARM_UP', optional(env, 'STRIPE_SECRET_KEY') !== null)),
    stripeSecretKey: optional(env, 'STRIPE_SECRET_KEY'),
    stripePublishableKey: optional(env, 'STRIPE_PUBLISHABLE_KEY'),
    stripeNetworkId: optional(env, 'STRIPE_NETWORK_ID') ?? 'internal',
    stripeApi: read(() => stripeApi(env)),
    x402: read(() => x402Settlement(env, nodeEnv), null),
    entityInstructionTtlSeconds: read(() => int(env, 'ENTITY_INSTRUCTION_TTL_SECONDS', 1800, 60, 7 * 86400)),
    entityRefundGraceSeconds: read(() => int(env, 'ENTITY_REFUND_GRACE_SECONDS', 3600, 0, 30 * 86400)),
    entityUnpaidRateLimitPerMinute: read(() => int(env, 'ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE', 30, 1, 1_000_000)),
    entitySigningKey: optional(env, 'ENTITY_SIGNING_KEY'),
    ssoEncryptionKey: read(() => ssoEncryptionKey(env), null),
    playLinks: read(() => playLinks(env)),
    dashboard: read(() => dashboardConfig(env, baseUrl, nodeEnv)),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function ssoEncryptionKey(env: Env): string | null {
  const value = optional(env, 'SSO_ENCRYPTION_KEY');
  if (value !== null && (!/^[A-Za-z0-9+/]{43}=$/.test(value) || Buffer.from(value, 'base64').length !== 32)) {
    throw new ConfigError('SSO_ENCRYPTION_KEY must be 32 random bytes in base64 (e.g. openssl rand -base64 32)');
  }
  return value;
}

function speechEngine(env: Env): string {
  const engine = str(env, 'SPEECH_ENGINE', 'espeak');
  const names = Object.keys(SPEECH_ENGINES);
  if (!names.includes(engine)) throw new ConfigError(`SPEECH_ENGINE must be ${names.join(' or ')}, got "${engine}"`);
  return engine;
}

function logFormat(env: Env, nodeEnv: Config['env']): Config['logFormat'] {
  // Readable lines for a developer at a terminal; JSON wherever a machine reads the logs.
  const format = str(env, 'LOG_FORMAT', nodeEnv === 'development' && process.stdout.isTTY ? 'pretty' : 'json');
  if (format !== 'json' && format !== 'pretty') throw new ConfigError(`LOG_FORMAT must be json or pretty, got "${format}"`);
  return format;
}

function metricsConfig(env: Env): { metricsToken: string | null; metricsPort: number | null } {
  const token = str(env, 'METRICS_TOKEN', '');
  if (token !== '' && token.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters (a random secret)');
  const port = str(env, 'METRICS_PORT', '') === '' ? null : int(env, 'METRICS_PORT', 0, 1, 65_535);
  return { metricsToken: token === '' ? null : token, metricsPort: port };
}

function redisUrl(env: Env): string | null {
  const value = str(env, 'REDIS_URL', '');
  if (value === '') return null;
  if (!/^rediss?:\/\/[^/]/.test(value))
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  return value;
}

function dashboardConfig(env: Env, baseUrl: string, nodeEnv: Config['env']): DashboardConfig {
  const smtpUrl = str(env, 'SMTP_URL', '');
  if (smtpUrl !== '' && !/^smtps?:\/\/[^/]/.test(smtpUrl)) {
    throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL, e.g. smtps://user:pass@smtp.example.com:465');
  }
  const transport = str(env, 'MAIL_TRANSPORT', smtpUrl === '' ? 'log' : 'smtp');
  if (transport !== 'smtp' && transport !== 'log')
    throw new ConfigError(`MAIL_TRANSPORT must be smtp or log, got "${transport}"`);
  if (transport === 'smtp' && smtpUrl === '') throw new ConfigError('MAIL_TRANSPORT=smtp needs SMTP_URL (smtp:// or smtps://)');
  if (transport === 'log' && smtpUrl !== '') throw new ConfigError('MAIL_TRANSPORT=log and SMTP_URL are both set: choose one');
  // The log mailer writes live sign-in links to the log: in production only when asked for by name.
  if (nodeEnv === 'production' && smtpUrl === '' && env.MAIL_TRANSPORT !== 'log') {
    throw new ConfigError(
      'NODE_ENV=production needs SMTP_URL to send sign-in mail; set MAIL_TRANSPORT=log to write sign-in links to the log instead',
    );
  }
  const mailFrom = str(env, 'MAIL_FROM', `voicename <no-reply@${new URL(baseUrl).hostname}>`);
  if (/[\r\n]/.test(mailFrom) || !/@/.test(mailFrom))
    throw new ConfigError(`MAIL_FROM must be an e-mail address, got "${mailFrom}"`);
  return {
    sessionTtlMs: duration(env, 'SESSION_TTL', '7d', 5 * 60_000, 90 * 86_400_000),
    smtpUrl: smtpUrl || null,
    mailFrom,
    mailRatePerMinute: int(env, 'MAIL_RATE_PER_MINUTE', 120, 0, 100_000),
    secureCookies: baseUrl.startsWith('https:'),
  };
}

/** The egress proxy: a bare http(s) origin (credentials allowed), since requests are tunnelled to it with CONNECT. */
function outboundProxyUrl(env: Env): string | null {
  const raw = str(env, 'OUTBOUND_PROXY_URL', '');
  if (raw === '') return null;
  const parsed = new URL(url('OUTBOUND_PROXY_URL', raw));
  if (parsed.pathname !== '/' || parsed.search !== '' || parsed.hash !== '') {
    throw new ConfigError(
      `OUTBOUND_PROXY_URL must be a proxy's address without a path, got "${parsed.origin}${parsed.pathname}"`,
    );
  }
  return parsed.href;
}

function webhookConfig(env: Env): WebhookConfig {
  const timeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000);
  const claimLeaseMs = int(env, 'WEBHOOK_CLAIM_LEASE_MS', 60_000, 1_000, 3_600_000);
  // A lease shorter than a send would let a second worker send the same delivery concurrently.
  if (claimLeaseMs < timeoutMs + 1_000) {
    throw new ConfigError(
      `WEBHOOK_CLAIM_LEASE_MS (${claimLeaseMs}) must be at least WEBHOOK_TIMEOUT_MS + 1000 (${timeoutMs + 1000})`,
    );
  }
  return {
    allowPrivateUrls: bool(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    outboundProxyUrl: outboundProxyUrl(env),
    logRetentionDays: int(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
    connectTimeoutMs: int(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    timeoutMs,
    claimLeaseMs,
    pollMs: int(env, 'WEBHOOK_POLL_MS', 500, 10, 60_000),
    concurrency: int(env, 'WEBHOOK_CONCURRENCY', 32, 1, 200),
    maxInFlightPerWebhook: int(env, 'WEBHOOK_MAX_IN_FLIGHT_PER_WEBHOOK', 8, 1, 200),
    maxPerAccount: int(env, 'WEBHOOK_MAX_PER_ACCOUNT', 20, 1, 1000),
  };
}
