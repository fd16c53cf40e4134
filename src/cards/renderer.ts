/**
 * Renders the SVG of a picture (preview card, badge) to PNG in a worker thread, and keeps recent
 * PNGs in memory by content. A 1200x630 card takes 60-120 ms of CPU in resvg, far too long for
 * the event loop, so rendering never runs on it: one worker thread (renders queue; the machine's
 * other core serves requests), started on first use, its wasm and fonts loaded once, replaced
 * when a render overruns its time limit.
 *
 * Pictures are named by a hash of everything they draw (see `Picture.key`), so the same content
 * is rendered once per process however many links or requests ask for it, and concurrent
 * requests for a picture being rendered share that render.
 */
import { Worker } from 'node:worker_threads';
import { DEFAULT_FAMILY } from './fonts.js';

/** What a template hands to the renderer: the content key, and how to build the SVG if needed. */
export interface Picture {
  /** Hash of the template version and every value drawn: the ETag, and the cache key. */
  key: string;
  /** The SVG and the font files it needs; only called when the PNG is not cached. */
  build(): Promise<{ svg: string; fonts: string[] }>;
  /** Output pixels per SVG unit (2 for high-density screens). */
  zoom: number;
}

export interface ImageRenderer {
  png(picture: Picture): Promise<Buffer>;
  close(): Promise<void>;
}

export class ImageRendererBusyError extends Error {
  constructor() {
    super('image renderer busy');
  }
}

const WORKER_URL = new URL('./render-worker.mjs', import.meta.url);

type WorkerMessage =
  { ready: true; id?: undefined } | { id: number; error: string } | { id: number; png: Uint8Array; ms: number };

interface Pending {
  resolve(png: Buffer): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export interface RendererOptions {
  /** Bytes of PNG kept in memory (least recently used dropped first). */
  cacheBytes?: number;
  /** Renders waiting for the worker beyond which new ones are refused (`ImageRendererBusyError`). */
  maxQueued?: number;
  timeoutMs?: number;
  /** Called with each render's duration in the worker (for logs and the bench). */
  onRender?: (ms: number) => void;
}

export class WorkerImageRenderer implements ImageRenderer {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly inflight = new Map<string, Promise<Buffer>>();
  private readonly cache = new Map<string, Buffer>();
  private cachedBytes = 0;
  private nextId = 1;

  constructor(private readonly options: RendererOptions = {}) {}

  async png(picture: Picture): Promise<Buffer> {
    const cacheKey = `${picture.key}@${picture.zoom}`;
    const hit = this.cache.get(cacheKey);
    if (hit) {
      // Map order is the recency order: move the hit to the end.
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, hit);
      return hit;
    }
    let running = this.inflight.get(cacheKey);
    if (!running) {
      if (this.inflight.size >= (this.options.maxQueued ?? 32)) throw new ImageRendererBusyError();
      running = this.render(picture).finally(() => this.inflight.delete(cacheKey));
      this.inflight.set(cacheKey, running);
      void running.then((png) => this.remember(cacheKey, png)).catch(() => undefined);
    }
    return running;
  }

  private remember(key: string, png: Buffer): void {
    const limit = this.options.cacheBytes ?? 32 * 1024 * 1024;
    if (png.length > limit || this.cache.has(key)) return;
    this.cache.set(key, png);
    this.cachedBytes += png.length;
    for (const [oldKey, old] of this.cache) {
      if (this.cachedBytes <= limit) break;
      this.cache.delete(oldKey);
      this.cachedBytes -= old.length;
    }
  }

  private async render(picture: Picture): Promise<Buffer> {
    const { svg, fonts } = await picture.build();
    const worker = await this.start();
    const id = this.nextId++;
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('image render timed out'));
        this.reset(new Error('image renderer restarted after a timeout'));
      }, this.options.timeoutMs ?? 10_000);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ id, svg, fonts, defaultFontFamily: DEFAULT_FAMILY, zoom: picture.zoom });
    });
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      this.worker = worker;
      worker.on('message', (message: WorkerMessage) => {
        if ('ready' in message) return resolve(worker);
        const entry = this.pending.get(message.id);
        if (!entry) return;
        this.pending.delete(message.id);
        clearTimeout(entry.timer);
        if ('error' in message) return entry.reject(new Error(`image render failed: ${message.error}`));
        this.options.onRender?.(message.ms);
        entry.resolve(Buffer.from(message.png.buffer, message.png.byteOffset, message.png.byteLength));
      });
      const fail = (err: Error) => {
        reject(err);
        this.reset(err);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (this.worker === worker) fail(new Error(`image render worker exited with code ${code}`));
      });
    });
    // A failed start is retried by the next render.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private reset(err: Error): void {
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(err);
      this.pending.delete(id);
    }
    void worker?.terminate();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    if (worker) await worker.terminate();
  }
}
