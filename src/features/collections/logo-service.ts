/**
 * A collection's logo: uploaded as PNG, JPEG or WebP (at most 1 MB), re-encoded as a PNG and
 * stored content-addressed (`logos/<sha256>.png`), so its URL never changes meaning and can be
 * cached for ever. Shown on the record page, the player page and in mail.
 */
import type { Db } from '../../db/index.js';
import type { BlobStore } from '../../blobs/blob-store.js';
import type { Config } from '../../config.js';
import { notFound } from '../../errors.js';
import type { LogoEncoder } from '../../images/logo.js';
import { type Clock, laterThan } from '../../lib/clock.js';
import { sha256Hex } from '../../lib/secrets.js';
import type { Deps as AppDeps } from '../../deps.js';
import { invalidateAllPlayLinks } from '../play-links/invalidation.js';
import { updateLiveCollection } from './repo.js';
import type { Collection } from './schemas.js';
import { type CollectionRow, requireLiveCollection, toCollection } from './service.js';

type LogoDeps = Pick<AppDeps, 'playLinks' | 'notifications'> & {
  db: Db;
  clock: Clock;
  blobs: BlobStore;
  logos: LogoEncoder;
  config: Pick<Config, 'baseUrl'>;
};

/** The blob key of a stored logo; also its public path under BASE_URL. */
export const LOGO_KEY = /^logos\/[0-9a-f]{64}\.png$/;

export async function setCollectionLogo(deps: LogoDeps, accountId: string, id: string, upload: Buffer): Promise<Collection> {
  const current = await requireLiveCollection(deps, accountId, id);
  const png = await deps.logos(upload);
  const key = `logos/${sha256Hex(png)}.png`;
  await deps.blobs.put(key, png, 'image/png');
  return saveLogoKey(deps, accountId, current, key);
}

/**
 * Removes the collection's logo. The stored image stays: another collection may show the same
 * one, and its URL is only reachable by those who saw it.
 */
export async function removeCollectionLogo(deps: LogoDeps, accountId: string, id: string): Promise<Collection> {
  const current = await requireLiveCollection(deps, accountId, id);
  return saveLogoKey(deps, accountId, current, null);
}

async function saveLogoKey(deps: LogoDeps, accountId: string, current: CollectionRow, key: string | null): Promise<Collection> {
  const row = await updateLiveCollection(deps.db.kysely, accountId, current.id, {
    logo_key: key,
    updated_at: laterThan(deps.clock, current.updated_at),
  });
  if (!row) throw notFound('collection', 'collection_id');
  // Player pages show the logo: drop cached links here and in the other processes.
  invalidateAllPlayLinks(deps);
  return toCollection(row, deps.config.baseUrl);
}

/** A stored logo's bytes by its public path (`logos/<sha256>.png`), or null. */
export async function readLogo(deps: { blobs: BlobStore }, key: string): Promise<Buffer | null> {
  return LOGO_KEY.test(key) ? deps.blobs.get(key) : null;
}
