/**
 * Renders the SVG of a picture (preview card, badge) to PNG in a worker thread, and keeps recent
 * PNGs in memory by content. A 1200x630 card takes tens of milliseconds of CPU in resvg
 * (docs/performance.md), far too long for the event loop, so rendering never runs on it: one worker thread (renders queue; the machine's
 * other core serves requests), started on first use, its wasm and fonts loaded once, replaced
 * when a render overruns its time limit.
 *
 * Pictures are named by a hash of everything they draw (see `Picture.key`), so the same content
 * is rendered once per process however many links or requests ask for it, and concurrent
 * requests for a picture being rendered share that render.
 */
import { WorkerClient } from '../lib/worker-client.js';
import { DEFAULT_FAMILY, fontFile } from './fonts.js';

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
  /** Loads the renderer and draws a small picture, so the first real one is drawn at warm speed; resolves when done (never rejects). */
  warm?(): Promise<void>;
  close(): Promise<void>;
}

export class ImageRendererBusyError extends Error {
  constructor() {
    super('image renderer busy');
  }
}

const WORKER_URL = new URL('./render-worker.mjs', import.meta.url);
/** The render thread holds its wasm and fonts in memory: stopped after 10 minutes without a render, restarted by the next. */
const IDLE_MS = 10 * 60_000;

export interface RendererOptions {
  /** Bytes of PNG kept in memory (least recently used dropped first). */
  cacheBytes?: number;
  /** Renders waiting for the worker beyond which new ones are refused (`ImageRendererBusyError`). */
  maxQueued?: number;
  timeoutMs?: number;
  /** Called with each render's duration in the worker (for logs and the bench). */
  onRender?: (ms: number) => void;
}

interface RenderRequest {
  svg: string;
  fonts: string[];
  defaultFontFamily: string;
  zoom: number;
}

export class WorkerImageRenderer implements ImageRenderer {
  private readonly client: WorkerClient<RenderRequest, { png: Uint8Array; ms: number }>;
  private readonly inflight = new Map<string, Promise<Buffer>>();
  private readonly cache = new Map<string, Buffer>();
  private cachedBytes = 0;

  constructor(private readonly options: RendererOptions = {}) {
    this.client = new WorkerClient(WORKER_URL, { name: 'image render', timeoutMs: options.timeoutMs ?? 10_000, idleMs: IDLE_MS });
  }

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
    const answer = await this.client.request({ svg, fonts, defaultFontFamily: DEFAULT_FAMILY, zoom: picture.zoom });
    this.options.onRender?.(answer.ms);
    return Buffer.from(answer.png.buffer, answer.png.byteOffset, answer.png.byteLength);
  }

  warm(): Promise<void> {
    return this.client.warm([
      {
        svg: `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><text x="4" y="28" font-size="20">voicename</text></svg>`,
        fonts: [fontFile(0, 400)],
        defaultFontFamily: DEFAULT_FAMILY,
        zoom: 1,
      },
    ]);
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
