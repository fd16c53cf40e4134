/**
 * Builds every adapter from the config, once, at boot. Services receive the parts they need
 * from here; tests build the same object with fakes where the network would be.
 */
import { ensurePrivateDir } from './lib/private-dir.js';
import type { Tracing } from './tracing.js';
import type { Logger } from 'pino';
import { type AudioProcessor, createAudioProcessorFromConfig } from './audio/pipeline.js';
import { type BlobStore, createBlobStore } from './blobs/index.js';
import type { Config } from './config.js';
import { JobsWakeup } from './jobs/wakeup.js';
import { type Cards, createCards } from './cards/index.js';
import { type Db, openDb } from './db/index.js';
import { createLogoEncoder, type LogoEncoder } from './images/logo.js';
import { createMailerFromConfig, type Mailer } from './integrations/mailer.js';
import type { MessageChannel } from './integrations/channels/channel.js';
import { createEmailChannel } from './integrations/channels/email/channel.js';
import { type ChannelChoice, createChannelRegistry, type MessageChannels } from './integrations/channels/registry.js';
import { locateFfmpeg, locatePrlimit } from './audio/ffmpeg.js';
import { createPaymentProvider, type PaymentProvider } from './integrations/payments/index.js';
import { type AgentApiSetup, createAgentApiSetup } from './features/agent-api/setup.js';
import { createPlatformKeySets, type PlatformKeySets } from './features/lti/platform-keys.js';
import { warmUpAgentApi } from './features/agent-api/warm-up.js';
import { createPlayLinkRuntime, type PlayLinkRuntime } from './features/play-links/cache.js';
import { applyPlayLinkChange, type PlayLinkChange } from './features/play-links/invalidation.js';
import { createNotifications, type Notifications } from './db/notifications.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createRateLimitStore, type RateLimitStore } from './http/rate-limit-store.js';
import { createMetrics, type Metrics } from './lib/metrics.js';
import { instrumentAudio, readJobQueueDepth } from './metrics-readers.js';
import { createLogger } from './logger.js';
import { createSpeechSynthesizer, type SpeechEngine } from './speech/index.js';
import { type Assets, loadAssets } from './web/assets.js';

export interface Deps {
  /** OpenTelemetry, when OTEL_EXPORTER_OTLP_ENDPOINT is set (started before the deps: src/tracing.ts). */
  tracing: Tracing | null;
  /**
   * `draining` is set when the process is shutting down: `/readyz` answers 503 so load balancers
   * stop sending work. `warm` is set when the background warm-up (WARM_UP) has finished: `/readyz`
   * says so, so a deploy or a benchmark can wait for it (it never holds readiness back).
   */
  lifecycle: { draining: boolean; warm: boolean };
  /** Tells the workers (this process's, and others' through the database) that jobs were just committed. */
  jobsWakeup: JobsWakeup;
  /** Messages to the other processes sharing the database (LISTEN/NOTIFY on PostgreSQL). */
  notifications: Notifications;
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  /** Compiled browser scripts and static files for pages. */
  assets: Assets;
  /** Upload → clean MP3 (ffmpeg). */
  audio: AudioProcessor;
  /** Payment processor of entity generation (sandbox by default, Stripe when configured). */
  payments: PaymentProvider;
  /** Text-to-speech and spelling-to-IPA engine (eSpeak NG in a worker thread by default). */
  speech: SpeechEngine;
  /** Per-process cache of resolved play-link tokens and pending play counts. */
  playLinks: PlayLinkRuntime;
  /** The e-mail channel's adapter (log or SMTP); also read by the development mailbox. */
  mailer: Mailer;
  /** Message channels by name (e-mail first): invitations, reminders, sign-in and member mail go through them. */
  channels: MessageChannels;
  /** Prometheus metrics of this process (`GET /metrics`, or METRICS_PORT). */
  metrics: Metrics;
  /** Where rate limits are counted: Redis shared by every process, or this process's memory. */
  rateLimits: RateLimitStore;
  /** Preview cards and signature badges: font metrics and the PNG renderer (a worker thread, started on first use). */
  cards: Cards;
  /** Uploaded logos → plain PNG (ffmpeg, with the audio pipeline's caps). */
  logos: LogoEncoder;
  /** What the agent API builds once per process: its request schema and validator, signing keys and unpaid-request budget. */
  agentApi: AgentApiSetup;
  /** LTI platforms' public key sets, cached per process (features/lti/platform-keys.ts). */
  ltiKeySets: PlatformKeySets;
}

export interface DepsOverrides {
  tracing?: Tracing | null;
  db?: Db;
  blobs?: BlobStore;
  clock?: Clock;
  logger?: Logger;
  audio?: AudioProcessor;
  payments?: PaymentProvider;
  speech?: SpeechEngine;
  mailer?: Mailer;
  /** Channels beside e-mail, and which one a person's message goes through (default: e-mail for everyone). */
  channels?: { extra?: MessageChannel[]; choose?: ChannelChoice };
}

export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  const logger = overrides.logger ?? createLogger(config.logLevel, undefined, config.logFormat);
  if (!ensurePrivateDir(config.dataDir))
    logger.warn({ data_dir: config.dataDir }, 'DATA_DIR belongs to another user; could not make it private');
  const db = overrides.db ?? openDb(config.database);
  const clock = overrides.clock ?? systemClock;
  const metrics = createMetrics();
  const audio = instrumentAudio(overrides.audio ?? createAudioProcessorFromConfig(config), metrics);
  const mailer = overrides.mailer ?? createMailerFromConfig(config, logger);
  const channels = createChannelRegistry(
    [createEmailChannel(mailer), ...(overrides.channels?.extra ?? [])],
    overrides.channels?.choose,
  );
  const playLinks = createPlayLinkRuntime({ ttlMs: config.playLinks.cacheTtlMs, maxEntries: config.playLinks.cacheMaxEntries });
  const notifications = createNotifications(config.database, db, logger);
  notifications.subscribe('play_links', (payload) => applyPlayLinkChange(playLinks, JSON.parse(payload) as PlayLinkChange));
  notifications.onGap(() => applyPlayLinkChange(playLinks, { all: true }));
  metrics.readers.jobQueue = () => readJobQueueDepth(db, clock);
  metrics.readers.audioQueued = () => audio.queued?.() ?? 0;
  metrics.readers.playLinkCache = () => ({ ...playLinks.cache.lookups });
  // The logo encoder finds its binaries on first use (memoised), not at start-up.
  let ffmpeg: string | undefined;
  let prlimit: string | null | undefined;
  const adapters = {
    metrics,
    config,
    lifecycle: { draining: false, warm: false },
    tracing: overrides.tracing ?? null,
    jobsWakeup: new JobsWakeup(notifications),
    notifications,
    db,
    clock,
    logger,
    blobs: overrides.blobs ?? createBlobStore(config),
    assets: loadAssets(),
    audio,
    payments: overrides.payments ?? createPaymentProvider(config, { db, clock }),
    speech: overrides.speech ?? createSpeechSynthesizer(config),
    playLinks,
    mailer,
    channels,
    rateLimits: createRateLimitStore(config.redisUrl, logger),
    cards: createCards(),
    logos: createLogoEncoder({
      ffmpegPath: () => (ffmpeg ??= locateFfmpeg(config.ffmpegPath)),
      timeoutMs: config.audioTimeoutMs,
      limits: () => ({
        memoryBytes: config.audioMaxMemoryMb * 1024 * 1024,
        cpuSeconds: Math.ceil(config.audioTimeoutMs / 1000),
        prlimitPath: (prlimit ??= locatePrlimit()),
      }),
    }),
  };
  return {
    ...adapters,
    agentApi: createAgentApiSetup(adapters),
    ltiKeySets: createPlatformKeySets({
      clock,
      allowPrivate: config.webhooks.allowPrivateUrls,
      proxyUrl: config.webhooks.outboundProxyUrl,
    }),
  };
}

/**
 * Warms the agent API's own steps (the MPP library, the request checks, the 402's challenges),
 * then the speech engine and the card renderer, in the background (one after the other: each
 * takes a core while it loads): what the first 402, the first paid profile and its first preview
 * card would otherwise wait for. The engines stop again after their idle time when nothing uses them.
 */
export async function warmUpDeps(deps: Deps): Promise<void> {
  const started = performance.now();
  // A failed step is what the first real request would have met: it reports it; the rest still warms.
  await warmUpAgentApi(deps).catch((err: unknown) => deps.logger.warn({ err }, 'agent API warm-up failed'));
  await deps.speech.warmUp?.();
  await deps.cards.renderer.warm?.();
  deps.lifecycle.warm = true;
  deps.logger.info({ ms: Math.round(performance.now() - started) }, 'agent API, speech engine and card renderer warmed up');
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.speech.close();
  await deps.cards.renderer.close();
  await deps.channels.close(); // closes the mailer with the e-mail channel
  await deps.rateLimits.close();
  await deps.notifications.close();
  await deps.db.close();
}
