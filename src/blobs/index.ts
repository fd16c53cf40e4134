import path from 'node:path';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { DiskBlobStore } from './disk.js';
import type { S3BlobStoreOptions } from './s3.js';

export type { BlobStore, ByteRange } from './blob-store.js';

/** The blob store the config asks for: disk under DATA_DIR/blobs (default) or S3 (`BLOB_STORE=s3`). */
export function createBlobStore(config: Config): BlobStore {
  if (config.blobs.store === 's3') return lazyS3BlobStore(config.blobs);
  return new DiskBlobStore(path.join(config.dataDir, 'blobs'));
}

/**
 * The S3 store, with the AWS SDK (resident memory: docs/performance.md) loaded on the first call
 * rather than at boot, so a process on local disk never loads it (ARCHITECTURE.md, "Start and stop").
 */
export function lazyS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  let store: Promise<BlobStore> | undefined;
  const load = () => (store ??= import('./s3.js').then(({ S3BlobStore }) => new S3BlobStore(options)));
  return {
    kind: 's3',
    put: async (key, data, contentType) => (await load()).put(key, data, contentType),
    get: async (key) => (await load()).get(key),
    stream: async (key, range) => (await load()).stream(key, range),
    stat: async (key) => (await load()).stat(key),
    delete: async (key) => (await load()).delete(key),
    list: async (prefix) => (await load()).list(prefix),
    listWithTimes: async (prefix) => (await load()).listWithTimes(prefix),
    presignedUrl: async (key, ttlSeconds) => (await load()).presignedUrl(key, ttlSeconds),
    // S3 writes an object whole or not at all (S3BlobStore answers 0 too): the start-up sweep loads nothing.
    removeStaleTemporaryFiles: async () => 0,
  };
}
