/** The shape of the settings `loadConfig` (config.ts) answers: everything else receives these. */
export type DatabaseConfig = { dialect: 'sqlite'; file: string } | { dialect: 'postgres'; url: string };

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  /** Default: all interfaces in production, loopback (127.0.0.1) otherwise. */
  host: string;
  dataDir: string;
  database: DatabaseConfig;
  baseUrl: string;
  siteUrl: string;
  logLevel: string;
  /** `pretty` (readable lines, development on a terminal) or `json` (one object per line). */
  logFormat: 'json' | 'pretty';
  /** Idle keep-alive connections stay open this long (longer than a load balancer's idle timeout). */
  keepAliveTimeoutMs: number;
  /** OTLP/HTTP collector base URL (traces go to `<it>/v1/traces`); null: no tracing. */
  otelEndpoint: string | null;
  /** On SIGTERM, how long `/readyz` answers 503 while requests are still served, before the server closes. */
  shutdownDelayMs: number;
  /** Budget for receiving a request's headers and a JSON body. */
  requestTimeoutMs: number;
  /** Budget for receiving an audio upload's body. */
  uploadTimeoutMs: number;
  /** Run the background worker inside the HTTP server process. */
  runWorker: boolean;
  /** Requests per minute allowed for one API key on /v1. */
  rateLimitPerMinute: number;
  /** Largest accepted JSON request body, in bytes. */
  jsonBodyLimit: number;
  trustProxy: boolean;
  /** Archived collections are erased for good this many days after archiving. */
  archiveRetentionDays: number;
  /** Redis for rate limits shared by every API process; null: counted in each process's memory. */
  redisUrl: string | null;
  /** `GET /metrics` needs `Authorization: Bearer <this>`; null: not served on the API port. */
  metricsToken: string | null;
  /** Serve the metrics on this port instead (API processes and workers); null: not at all. */
  metricsPort: number | null;
  /** ffmpeg binary; null = `ffmpeg` on PATH, then the npm-shipped one. */
  ffmpegPath: string | null;
  /** Longest one ffmpeg run may take before it is killed; also its CPU-time cap (rounded up to seconds). */
  audioTimeoutMs: number;
  /** Memory one ffmpeg run may use (address space under prlimit, else resident memory), in MB. */
  audioMaxMemoryMb: number;
  /** ffmpeg runs at once per process; further uploads wait their turn (fairly between senders). */
  audioConcurrency: number;
  /** Uploads that may wait for an ffmpeg slot in all; beyond it they are answered 503 `audio_busy`. */
  audioQueueMax: number;
  /** Uploads one account may have running or waiting; beyond it its uploads are answered 429 `rate_limited`. */
  audioQueuePerAccount: number;
  blobs: BlobConfig;
  /** Requests per minute per client address on the public recorder (/r/…). */
  recorderRateLimitPerMinute: number;
  /** Rendered images (preview cards, signature badges) per minute per client address. */
  imageRateLimitPerMinute: number;
  /** The `twitter:site` handle of link previews (`@name`); null: the tag is left out. */
  twitterSite: string | null;
  webhooks: WebhookConfig;
  /**
   * Entity generation: `stripe` when STRIPE_SECRET_KEY is set, otherwise the built-in `sandbox`
   * (which publishes for free: production needs PAYMENTS_SANDBOX=true to run it).
   */
  paymentProvider: 'sandbox' | 'stripe';
  /** The text-to-speech engine (`SPEECH_ENGINE`), one of `SPEECH_ENGINES` in src/speech/index.ts. */
  speechEngine: string;
  /**
   * `WARM_UP`: warm the agent API's request checks and 402 challenges (writing nothing), the speech
   * engine and the card renderer up in the background once the server listens, so the first paid
   * profile after a restart costs what a later one does. The engines hold ~75 MB and more until
   * their 10-minute idle stop, so the default is on only where profiles are sold (Stripe
   * payments), not on the sandbox a team server or a development machine runs.
   */
  warmUp: boolean;
  stripeSecretKey: string | null;
  stripePublishableKey: string | null;
  /**
   * This seller's id on Stripe's network (`profile_…`), named in the MPP `stripe` challenge so an
   * agent's wallet can grant a shared payment token to it.
   */
  stripeNetworkId: string;
  /** x402 v2 settlement of paid generation beside MPP (all X402_* settings set), or null: no x402 offer. */
  x402: X402Config | null;
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
  /** Base64 of 32 bytes: the AES-256-GCM key sealing SSO client secrets; null = generated under DATA_DIR. */
  ssoEncryptionKey: string | null;
  /** Public play links: cache lifetime of a resolved token, push interval of play counts, audio redirects. */
  playLinks: PlayLinkConfig;
  dashboard: DashboardConfig;
}

export interface PlayLinkConfig {
  /** Longest a process trusts a resolved token (ms) if an invalidation message is lost; entries otherwise live until invalidated. 0 disables the cache. */
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

export interface DashboardConfig {
  /** How long a dashboard session lasts after sign-in (absolute, not sliding). */
  sessionTtlMs: number;
  /** smtp:// or smtps:// URL of the mail relay; null = the log mailer (links go to the server log). */
  smtpUrl: string | null;
  /** From address of all mail (collections' sender names go before it). */
  mailFrom: string;
  /** Mail to people (invitations, reminders) sent per minute over all workers; 0 = no limit. */
  mailRatePerMinute: number;
  /** Cookies get `Secure` when BASE_URL is https. */
  secureCookies: boolean;
}

export interface WebhookConfig {
  /** Allow http:// and private/loopback targets (local development and tests only). */
  allowPrivateUrls: boolean;
  /**
   * The operator's egress proxy (OUTBOUND_PROXY_URL): every customer-bound request (webhooks,
   * callbacks, domain proofs, SSO and LTI fetches) is tunnelled through it; null: direct.
   */
  outboundProxyUrl: string | null;
  /** Days delivery logs (payloads with names and e-mail addresses) are kept. */
  logRetentionDays: number;
  connectTimeoutMs: number;
  /** Whole-request budget; a 2xx must arrive within it. */
  timeoutMs: number;
  /** How long a claimed delivery stays with one worker before another may take it over. */
  claimLeaseMs: number;
  /** How often a worker looks for due deliveries. */
  pollMs: number;
  /** Deliveries one worker sends at the same time. */
  concurrency: number;
  /**
   * Deliveries of one webhook in flight at once, across all workers: a receiver that answers
   * slowly holds at most this many send slots, whatever its backlog.
   */
  maxInFlightPerWebhook: number;
  /** Webhooks one account may register. */
  maxPerAccount: number;
}

export type BlobConfig =
  | { store: 'disk' }
  | {
      store: 's3';
      bucket: string;
      endpoint: string | null;
      region: string;
      accessKeyId: string | null;
      secretAccessKey: string | null;
      forcePathStyle: boolean;
    };

export interface X402Config {
  /** CAIP-2 network id, e.g. eip155:8453 (Base) or eip155:84532 (Base Sepolia). */
  network: string;
  /** The token contract the `exact` scheme transfers (an EIP-3009 token such as USDC). */
  asset: string;
  /** The token's EIP-712 domain name and version, which the payer signs over (USDC: "USDC", "2"). */
  assetName: string;
  assetVersion: string;
  payTo: string;
  facilitatorUrl: string;
  /** Token units (atomic) per 1.00 AUD: the x402 amount is the AUD price times this, never a guessed rate. */
  audRate: bigint;
}
