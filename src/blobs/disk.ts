import fsSync, { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { randomToken } from '../lib/ids.js';
import { assertSafeKey, type BlobInfo, type BlobStore, type ByteRange } from './blob-store.js';

/** Blobs as files under `root`; content type in a sidecar-free way: derived from the extension. */
export class DiskBlobStore implements BlobStore {
  readonly kind = 'disk' as const;
  constructor(private readonly root: string) {
    // Made at once, so the directory exists to be backed up (docs/deploy.md) before the first upload.
    fsSync.mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  private file(key: string): string {
    const full = path.resolve(this.root, assertSafeKey(key));
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`unsafe blob key: ${key}`);
    return full;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const target = this.file(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // Write to a temporary name and rename: readers never see a half-written file.
    const temp = `${target}.${randomToken(6)}.tmp`;
    const handle = await fs.open(temp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  }

  async get(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | null> {
    const info = await this.stat(key);
    if (!info) return null;
    return createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
  }

  async stat(key: string): Promise<BlobInfo | null> {
    try {
      const stats = await fs.stat(this.file(key));
      return { key, size: stats.size, contentType: contentTypeOf(key) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.rm(this.file(key), { force: true });
  }

  async listWithTimes(prefix: string): Promise<{ key: string; modifiedAt: Date }[]> {
    const keys = await this.list(prefix);
    const out: { key: string; modifiedAt: Date }[] = [];
    for (const key of keys) {
      const stats = await fs.stat(this.file(key)).catch(() => null);
      if (stats) out.push({ key, modifiedAt: stats.mtime });
    }
    return out;
  }

  async presignedUrl(): Promise<string | null> {
    return null;
  }

  async removeStaleTemporaryFiles(olderThanMs: number): Promise<number> {
    const cutoff = Date.now() - olderThanMs;
    let removed = 0;
    for await (const full of filesUnder(path.resolve(this.root))) {
      if (!full.endsWith('.tmp')) continue;
      const stat = await fs.stat(full).catch(() => null);
      if (stat === null || stat.mtimeMs >= cutoff) continue;
      try {
        await fs.rm(full);
        removed++;
      } catch {
        // Renamed into place or removed by another process meanwhile.
      }
    }
    return removed;
  }

  async list(prefix: string): Promise<string[]> {
    const root = path.resolve(this.root);
    const start = path.join(root, prefix);
    const out: string[] = [];
    for await (const full of filesUnder(start.endsWith(path.sep) ? start : path.dirname(start))) {
      if (!full.endsWith('.tmp')) out.push(path.relative(root, full).split(path.sep).join('/'));
    }
    return out.filter((key) => key.startsWith(prefix)).sort();
  }
}

/** Every file below `dir` (depth first); a missing or unreadable folder has none. */
async function* filesUnder(dir: string): AsyncGenerator<string> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* filesUnder(full);
    else yield full;
  }
}

const TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  png: 'image/png',
  svg: 'image/svg+xml',
  json: 'application/json',
  wav: 'audio/wav',
};
export const contentTypeOf = (key: string): string => TYPES[key.split('.').pop() ?? ''] ?? 'application/octet-stream';
