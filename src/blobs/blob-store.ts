/**
 * Blob storage behind one small interface: local disk (default) or S3-compatible storage.
 * Keys are relative paths like `recordings/<user>/<sha256>.mp3`; adapters reject anything
 * that could escape their root.
 */
import type { Readable } from 'node:stream';

export interface BlobInfo {
  key: string;
  size: number;
  contentType: string;
}

export interface ByteRange {
  /** Inclusive byte offsets. */
  start: number;
  end: number;
}

export interface BlobStore {
  readonly kind: 'disk' | 's3';
  /** Writes the whole blob; after it resolves the blob is durable and readable. */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** The whole blob, or null when it does not exist. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the blob (or a range of it), or null when it does not exist. */
  stream(key: string, range?: ByteRange): Promise<Readable | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Deleting a missing blob is not an error. */
  delete(key: string): Promise<void>;
  /** Keys under a prefix (for orphan clean-up). */
  list(prefix: string): Promise<string[]>;
  /** Keys under a prefix with their last-modified time (orphan clean-up skips fresh blobs). */
  listWithTimes(prefix: string): Promise<{ key: string; modifiedAt: Date }[]>;
  /**
   * A time-limited URL a client can GET the blob from directly, or null when the store
   * cannot give one (disk: the app must stream the blob itself).
   */
  presignedUrl(key: string, ttlSeconds: number): Promise<string | null>;
  /**
   * Removes half-written files a crash left behind (disk: `*.tmp` older than `olderThanMs`);
   * returns how many. Stores that write atomically have none.
   */
  removeStaleTemporaryFiles(olderThanMs: number): Promise<number>;
}

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Throws unless `key` is a plain relative path of safe segments (no `..`, no absolute paths). */
export function assertSafeKey(key: string): string {
  if (key.length > 512 || !SAFE_KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`unsafe blob key: ${JSON.stringify(key)}`);
  }
  return key;
}
