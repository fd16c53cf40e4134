/**
 * Answers a request for a rendered picture (preview card, signature badge): strong ETag from the
 * picture's content key, 304 for a matching `If-None-Match` without rendering anything, and a
 * cache lifetime that depends on whether the URL names the content (`?v=<key>`: immutable) or
 * not (a short `max-age`, then revalidation by ETag).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ImageRenderer, ImageRendererBusyError, type Picture } from '../cards/index.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface PictureCaching {
  /** The `v` the URL carried, if any: when it is the picture's key the answer never changes. */
  version: string | undefined;
  /** Lifetime when the URL does not name the content, in seconds. */
  maxAgeSeconds: number;
}

export const etagMatches = (header: string | undefined, etag: string): boolean =>
  header !== undefined && header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag || tag.trim() === '*');

export async function sendPicture(
  request: FastifyRequest,
  reply: FastifyReply,
  renderer: ImageRenderer,
  picture: Picture,
  caching: PictureCaching,
): Promise<FastifyReply> {
  const etag = `"${picture.key}${picture.zoom === 1 ? '' : `@${picture.zoom}x`}"`;
  reply
    .header('etag', etag)
    .header('cache-control', caching.version === picture.key ? IMMUTABLE : `public, max-age=${caching.maxAgeSeconds}`)
    .header('x-content-type-options', 'nosniff')
    // Mail clients, chat apps and other sites show these images: they must be loadable from anywhere.
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('access-control-allow-origin', '*')
    .header('content-security-policy', "default-src 'none'")
    .header('x-robots-tag', 'noindex');
  if (etagMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  let png: Buffer;
  try {
    png = await renderer.png(picture);
  } catch (err) {
    if (!(err instanceof ImageRendererBusyError)) throw err;
    return reply
      .code(503)
      .header('retry-after', '5')
      .header('cache-control', 'no-store')
      .type('text/plain; charset=utf-8')
      .send('Busy drawing other images; retry in a few seconds.');
  }
  return reply.type('image/png').header('content-length', png.length).send(png);
}
