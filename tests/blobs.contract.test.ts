/** One contract, two adapters: the disk store and the S3 store must behave the same. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../src/blobs/blob-store.js';
import { DiskBlobStore } from '../src/blobs/disk.js';
import { createBlobStore } from '../src/blobs/index.js';
import { S3BlobStore } from '../src/blobs/s3.js';
import { loadConfig } from '../src/config.js';
import { startTestS3, type TestS3 } from './helpers/s3.js';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

function blobContract(name: string, setup: () => Promise<{ store: BlobStore; close(): Promise<void> }>) {
  describe(`blob store contract: ${name}`, () => {
    let store: BlobStore;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await setup());
    });
    afterAll(() => close());

    it('writes, reads, overwrites and deletes a blob', async () => {
      const key = 'recordings/u1/abc.mp3';
      const data = randomBytes(300_000);
      await store.put(key, data, 'audio/mpeg');
      expect((await store.get(key))?.equals(data)).toBe(true);
      expect(await store.stat(key)).toEqual({ key, size: data.length, contentType: 'audio/mpeg' });
      await store.put(key, Buffer.from('second'), 'audio/mpeg');
      expect((await store.get(key))?.toString()).toBe('second');
      await store.delete(key);
      expect(await store.get(key)).toBeNull();
    });

    it('answers null for missing blobs and ignores deleting them', async () => {
      expect(await store.get('recordings/none/missing.mp3')).toBeNull();
      expect(await store.stat('recordings/none/missing.mp3')).toBeNull();
      expect(await store.stream('recordings/none/missing.mp3')).toBeNull();
      await expect(store.delete('recordings/none/missing.mp3')).resolves.toBeUndefined();
    });

    it('streams a whole blob or an inclusive byte range', async () => {
      const key = 'streams/one.mp3';
      const data = Buffer.from('0123456789abcdef');
      await store.put(key, data, 'audio/mpeg');
      expect((await readAll((await store.stream(key)) as Readable)).toString()).toBe('0123456789abcdef');
      expect((await readAll((await store.stream(key, { start: 2, end: 5 })) as Readable)).toString()).toBe('2345');
      expect((await readAll((await store.stream(key, { start: 15, end: 15 })) as Readable)).toString()).toBe('f');
    });

    it('lists keys under a prefix, sorted, with modification times', async () => {
      const started = Date.now() - 5_000;
      for (const key of ['list/b/2.mp3', 'list/a/1.mp3', 'list/b/1.mp3', 'listing-other/x.mp3']) {
        await store.put(key, Buffer.from(key), 'audio/mpeg');
      }
      expect(await store.list('list/')).toEqual(['list/a/1.mp3', 'list/b/1.mp3', 'list/b/2.mp3']);
      expect(await store.list('list/b/')).toEqual(['list/b/1.mp3', 'list/b/2.mp3']);
      expect(await store.list('nothing-here/')).toEqual([]);
      const timed = await store.listWithTimes('list/a/');
      expect(timed.map((t) => t.key)).toEqual(['list/a/1.mp3']);
      expect(timed[0]?.modifiedAt.getTime()).toBeGreaterThan(started);
    });

    it.each(['../escape.mp3', '/etc/passwd', 'a/../../b.mp3', 'a//b.mp3', '', 'a/./b.mp3', 'a\\b.mp3', '.hidden', 'a/b/'])(
      'rejects the unsafe key %j',
      async (key) => {
        await expect(store.put(key, Buffer.from('x'), 'audio/mpeg')).rejects.toThrow(/unsafe blob key/);
        await expect(store.get(key)).rejects.toThrow(/unsafe blob key/);
        await expect(store.delete(key)).rejects.toThrow(/unsafe blob key/);
      },
    );

    it('gives a presigned URL where the store can (S3), null where it cannot (disk)', async () => {
      const key = 'signed/one.mp3';
      await store.put(key, Buffer.from('signed content'), 'audio/mpeg');
      const url = await store.presignedUrl(key, 60);
      if (store.kind === 'disk') {
        expect(url).toBeNull();
        return;
      }
      expect(url).toMatch(/^http/);
      const res = await fetch(url as string);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('signed content');
    });
  });
}

describe('disk store: crash leftovers', () => {
  it('removes half-written files older than the given age, and nothing else', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-blobs-'));
    try {
      const store: BlobStore = new DiskBlobStore(dir);
      await store.put('recordings/u/kept.mp3', Buffer.from('audio'), 'audio/mpeg');
      const old = path.join(dir, 'recordings/u/lost.mp3.abc123.tmp');
      const fresh = path.join(dir, 'recordings/u/writing.mp3.def456.tmp');
      fs.writeFileSync(old, 'half');
      fs.writeFileSync(fresh, 'half');
      const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
      fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
      expect(await store.removeStaleTemporaryFiles(3_600_000)).toBe(1);
      expect(fs.existsSync(old)).toBe(false);
      expect(fs.existsSync(fresh)).toBe(true); // an upload still being written
      expect(await store.get('recordings/u/kept.mp3')).toEqual(Buffer.from('audio'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

blobContract('disk', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-blobs-'));
  return { store: new DiskBlobStore(dir), close: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let s3: TestS3;
blobContract('s3', async () => {
  s3 = await startTestS3();
  const store = new S3BlobStore({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
  });
  return { store, close: () => s3.close() };
});

describe('BLOB_STORE selection', () => {
  it('uses disk by default and S3 when configured, and validates the S3 settings', () => {
    expect(createBlobStore(loadConfig({ DATA_DIR: os.tmpdir() })).kind).toBe('disk');
    const config = loadConfig({
      BLOB_STORE: 's3',
      S3_BUCKET: 'b',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_ACCESS_KEY_ID: 'k',
      S3_SECRET_ACCESS_KEY: 's',
    });
    expect(config.blobs).toMatchObject({ store: 's3', bucket: 'b', forcePathStyle: true, region: 'us-east-1' });
    expect(createBlobStore(config).kind).toBe('s3');
    expect(() => loadConfig({ BLOB_STORE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => loadConfig({ BLOB_STORE: 'ftp' })).toThrow(/BLOB_STORE/);
    expect(() => loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(/S3_SECRET_ACCESS_KEY/);
    expect(loadConfig({ BLOB_STORE: 's3', S3_BUCKET: 'b' }).blobs).toMatchObject({ endpoint: null, forcePathStyle: false });
  });
});
