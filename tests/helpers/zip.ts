/**
 * Reading exports back: a ZIP's entries in order (with yauzl, which checks the structure and
 * every CRC), and a blob store that watches how the export opens audio streams.
 */
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';
import type { BlobStore, ByteRange } from '../../src/blobs/index.js';

export interface ZipEntry {
  name: string;
  data: Buffer;
  compressed: boolean;
}

/** Every entry of the ZIP, in archive order; rejects on a malformed archive or a bad CRC. */
export async function readZip(buffer: Buffer): Promise<ZipEntry[]> {
  const zip = await yauzl.fromBufferPromise(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true });
  const entries: ZipEntry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      zip
        .openReadStreamPromise(entry)
        .then(async (stream) => {
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          entries.push({ name: entry.fileName, data: Buffer.concat(chunks), compressed: entry.compressionMethod !== 0 });
          zip.readEntry();
        })
        .catch(reject);
    });
    zip.once('end', resolve);
    zip.once('error', reject);
    zip.readEntry();
  });
  return entries;
}

/**
 * A blob store that passes everything to `inner` and records how streams are used: how many
 * were opened, how many were open at once at most, how many are still being opened, and (with
 * `delayMs`) makes each open slow.
 */
export class WatchedBlobStore implements BlobStore {
  opened = 0;
  open = 0;
  maxOpen = 0;
  opening = 0;
  delayMs = 0;

  constructor(private readonly inner: BlobStore) {}

  get kind() {
    return this.inner.kind;
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | null> {
    this.opening++;
    let stream: Readable | null;
    try {
      // The fake's slowness (a store far away), not a wait of the test.
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      stream = await this.inner.stream(key, range);
    } finally {
      this.opening--;
    }
    if (!stream) return null;
    this.opened++;
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    stream.once('close', () => this.open--);
    return stream;
  }

  put = (key: string, data: Buffer, contentType: string) => this.inner.put(key, data, contentType);
  get = (key: string) => this.inner.get(key);
  stat = (key: string) => this.inner.stat(key);
  delete = (key: string) => this.inner.delete(key);
  list = (prefix: string) => this.inner.list(prefix);
  listWithTimes = (prefix: string) => this.inner.listWithTimes(prefix);
  presignedUrl = (key: string, ttlSeconds: number) => this.inner.presignedUrl(key, ttlSeconds);
  removeStaleTemporaryFiles = (olderThanMs: number) => this.inner.removeStaleTemporaryFiles(olderThanMs);
}
