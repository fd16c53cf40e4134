/**
 * Browser assets (small vanilla TypeScript scripts, CSS, images, a sample recording) from `src/web/client/`.
 * Scripts are compiled with esbuild once at boot and kept in memory (the built server finds
 * them compiled already by `npm run build`, as `.js`, and starts no esbuild service); every asset is served
 * under a content-hashed name (`/assets/recorder.3f2a9c1b.js`) with an immutable cache header,
 * so a deploy never serves a stale script and browsers never re-download an unchanged one.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { contentRange, requestedRange } from '../http/range.js';

export interface Asset {
  body: Buffer;
  contentType: string;
  url: string;
}

export interface Assets {
  /** URL path of an asset by its source name, e.g. `url('recorder.ts')` → `/assets/recorder.1a2b3c4d.js`. */
  url(name: string): string;
  byPath(file: string): Asset | undefined;
  /** An asset by its source name, for the few served at a fixed address (`/favicon.ico`). */
  byName(name: string): Asset | undefined;
}

/** esbuild, loaded only when running from src/ (the built server reads scripts compiled by `npm run build`). */
const loadEsbuild = () => createRequire(import.meta.url)('esbuild') as typeof import('esbuild');

const CLIENT_DIR = fileURLToPath(new URL('./client/', import.meta.url));
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.mp3': 'audio/mpeg',
};

export function loadAssets(dir: string = CLIENT_DIR): Assets {
  const byName = new Map<string, Asset>();
  const byFile = new Map<string, Asset>();
  for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    const source = fs.readFileSync(path.join(dir, entry));
    let ext = path.extname(entry);
    let body = source;
    if (ext === '.ts') {
      if (entry.endsWith('.test.ts') || entry.endsWith('.d.ts')) continue;
      body = Buffer.from(
        loadEsbuild().transformSync(source.toString('utf8'), { loader: 'ts', format: 'iife', target: 'es2020', minify: true })
          .code,
      );
      ext = '.js';
    }
    const contentType = TYPES[ext];
    if (!contentType) continue;
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
    const file = `${path.basename(entry, path.extname(entry))}.${hash}${ext}`;
    const asset = { body, contentType, url: `/assets/${file}` };
    byName.set(entry, asset);
    // A script compiled by `npm run build` keeps answering to its source name.
    if (entry.endsWith('.js')) byName.set(`${path.basename(entry, '.js')}.ts`, asset);
    byFile.set(file, asset);
  }
  return {
    url(name) {
      const asset = byName.get(name);
      if (!asset) throw new Error(`unknown asset ${name}`);
      return asset.url;
    },
    byPath: (file) => byFile.get(file),
    byName: (name) => byName.get(name),
  };
}

export function registerAssetRoutes(app: FastifyInstance, assets: Assets): void {
  app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const asset = assets.byPath(request.params.file);
    if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('access-control-allow-origin', '*')
      .type(asset.contentType);
    if (!asset.contentType.startsWith('audio/')) return reply.send(asset.body);
    // Browsers fetch audio in byte ranges (and seek with them); the name's content hash is a strong validator.
    const size = asset.body.length;
    const etag = `"${request.params.file}"`;
    reply.header('accept-ranges', 'bytes').header('etag', etag);
    const range = requestedRange(request.headers, size, etag);
    if (range === 'unsatisfiable') return reply.code(416).header('content-range', contentRange(range, size)).send();
    if (!range) return reply.send(asset.body);
    return reply
      .code(206)
      .header('content-range', contentRange(range, size))
      .send(asset.body.subarray(range.start, range.end + 1));
  });
}
