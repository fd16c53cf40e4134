/**
 * Builds every adapter from the config, once, at boot. Services receive the parts they need
 * from here; tests build the same object with fakes where the network would be.
 */
import type { Logger } from 'pino';
import { type BlobStore, createBlobStore } from './blobs/index.js';
import type { Config } from './config.js';
import { type Db, openDb } from './db/index.js';
import { createPlayLinkRuntime, type PlayLinkRuntime } from './features/play-links/cache.js';
import { type Clock, systemClock } from './lib/clock.js';
import { createLogger } from './logger.js';
import { type Assets, loadAssets } from './web/assets.js';

export interface Deps {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  /** Compiled browser scripts and static files for pages. */
  assets: Assets;
  /** Per-process cache of resolved play-link tokens and pending play counts. */
  playLinks: PlayLinkRuntime;
}

export interface DepsOverrides {
  db?: Db;
  blobs?: BlobStore;
  clock?: Clock;
  logger?: Logger;
}

export function createDeps(config: Config, overrides: DepsOverrides = {}): Deps {
  return {
    config,
    db: overrides.db ?? openDb(config.database),
    clock: overrides.clock ?? systemClock,
    logger: overrides.logger ?? createLogger(config.logLevel),
    blobs: overrides.blobs ?? createBlobStore(config),
    assets: loadAssets(),
    playLinks: createPlayLinkRuntime({ ttlMs: config.playLinks.cacheTtlMs, maxEntries: config.playLinks.cacheMaxEntries }),
  };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await deps.db.close();
}
