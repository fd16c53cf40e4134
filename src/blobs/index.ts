import path from 'node:path';
import type { Config } from '../config.js';
import type { BlobStore } from './blob-store.js';
import { DiskBlobStore } from './disk.js';

export type { BlobInfo, BlobStore, ByteRange } from './blob-store.js';

/** The blob store the config asks for (disk under DATA_DIR/blobs by default). */
export function createBlobStore(config: Config): BlobStore {
  return new DiskBlobStore(path.join(config.dataDir, 'blobs'));
}
