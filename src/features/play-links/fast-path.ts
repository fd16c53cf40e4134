/**
 * The hottest public URL, `GET /p/<token>.mp3`, answered straight from the node:http request
 * listener when the token is already in this process's cache: no routing, hooks or promises,
 * so the redirect runs close to a bare node:http server. Anything else (a cache miss, an
 * unknown token, HEAD, a query string) falls through to the Fastify route, which answers the same
 * way and fills the cache. Install with Fastify's `serverFactory` (see app.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../../deps.js';
import { requestIdFor } from '../../http/request-id.js';
import { isPlayStart } from './audio-response.js';
import { TOKEN_SHAPE } from './service.js';

export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Headers of every `.mp3` redirect, shared with the Fastify route so both answer alike. */
export const REDIRECT_HEADERS = {
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'x-robots-tag': 'noindex',
} as const;

export function createPlayLinkFastPath(deps: Pick<Deps, 'playLinks'>): FastPath {
  const { cache, counter } = deps.playLinks;
  return (req, res) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith('/p/') || !url.endsWith('.mp3')) return false;
    const token = url.slice(3, -4);
    if (!TOKEN_SHAPE.test(token)) return false;
    const link = cache.peek(token);
    if (!link) return false;
    if (isPlayStart('GET', req.headers.range)) counter.add(token);
    res.writeHead(302, {
      ...REDIRECT_HEADERS,
      location: link.audioLocation,
      'x-request-id': requestIdFor(req),
      'content-length': '0',
    });
    res.end();
    return true;
  };
}
