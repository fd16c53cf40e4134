import path from 'node:path';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { DiskBlobStore } from './disk.js';
import { S3BlobStore } from './s3.js';

export type { BlobInfo, BlobStore, ByteRange } from './blob-store.js';

/** The blob store the config asks for: disk under DATA_DIR/blobs (default) or S3 (`BLOB_STORE=s3`). */
export function createBlobStore(config: Config): BlobStore {
  if (config.blobs.store === 's3') return new S3BlobStore(config.blobs);
  return new DiskBlobStore(path.join(config.dataDir, 'blobs'));
}
