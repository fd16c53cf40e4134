/**
 * Erased play links answer 410 Gone on every public URL (`/p/<token>`, `.mp3`, `/embed`,
 * `/meta`, `/qr.svg`, the images, `/oembed?url=…`), not 404: whoever embedded or shared one
 * learns it was removed on purpose. One hook for all of them: any 404 of a public play-link URL
 * whose token has a tombstone becomes a 410, so new public URLs get it without a change here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { tokenFromPlayLinkUrl } from '../play-links/urls.js';
import { wasErased } from './service.js';

const PUBLIC_PATH = /^\/p\/([A-Za-z0-9_-]{8,64})(?:\.mp3|\/[^?]*)?(?:\?|$)/;

function tokenOf(request: FastifyRequest, baseUrl: string): string | null {
  const path = PUBLIC_PATH.exec(request.url);
  if (path) return path[1] ?? null;
  if (request.url.startsWith('/oembed?')) {
    const url = (request.query as Record<string, unknown> | undefined)?.url;
    return typeof url === 'string' ? tokenFromPlayLinkUrl(baseUrl, url) : null;
  }
  return null;
}

export function registerErasedTokenAnswers(app: FastifyInstance, deps: Deps): void {
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode !== 404 || (request.method !== 'GET' && request.method !== 'HEAD')) return payload;
    const token = tokenOf(request, deps.config.baseUrl);
    if (token === null || !(await wasErased(deps, token))) return payload;
    reply.code(410).header('cache-control', 'no-store');
    if (/^\/p\/[^/]+\/meta/.test(request.url)) {
      reply.type('application/json; charset=utf-8');
      return JSON.stringify({
        error: {
          type: 'invalid_request_error',
          code: 'resource_gone',
          message: 'This play link was erased.',
          request_id: request.id,
        },
      });
    }
    reply.type('text/plain; charset=utf-8');
    return 'Gone: this recording was erased by the organisation that published it.';
  });
}
