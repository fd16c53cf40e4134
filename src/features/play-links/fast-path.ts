/**
 * The hottest public URL, `GET /p/<token>.mp3`, answered straight from the node:http request
 * listener: no routing, hooks or per-request promises when the token is cached, so the redirect
 * runs close to a bare node:http server; a cache miss loads the token (the same cached, coalesced
 * load the route uses) and answers the same way. Everything else (unknown or removed tokens,
 * HEAD, a query string, a database error) goes to the Fastify route via `next`, which answers
 * with the same headers and renders 404s and 500s. Install with Fastify's `serverFactory` (app.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../../deps.js';
import { requestIdOf } from '../../http/request-id.js';
import { isPlayStart } from './audio-response.js';
import type { ResolvedPlayLink } from './cache.js';
import { resolvePlayLink, TOKEN_SHAPE } from './service.js';

export type FastPath = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** Headers of every `.mp3` redirect, shared with the Fastify route so both answer alike. */
export const REDIRECT_HEADERS = {
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'x-robots-tag': 'noindex',
} as const;

/**
 * The redirect's headers as node:http's flat [name, value, …] list, built once per cached link and
 * kept on it (a property, not a WeakMap: 100,000 weak entries made every full GC slower): the
 * request id is the last value, written in place just before `writeHead` (which copies the list
 * into the response synchronously), so a hit allocates nothing but the id.
 */
function redirectHeadersOf(link: ResolvedPlayLink): string[] {
  return [...Object.entries(REDIRECT_HEADERS).flat(), 'location', link.audioLocation, 'content-length', '0', 'x-request-id', ''];
}

/**
 * One request header's value read from the raw [name, value, …] list: `req.headers` would build an
 * object of every header on first use, a tenth of a cached redirect's time. A repeated header takes
 * the slow way, so its value is node's own (joined with ", ").
 */
function rawHeader(req: IncomingMessage, name: 'range' | 'x-request-id'): string | undefined {
  const raw = req.rawHeaders;
  let found: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const each = raw[i] as string;
    if (each.length !== name.length || each.toLowerCase() !== name) continue;
    if (found !== undefined) return req.headers[name] as string;
    found = raw[i + 1];
  }
  return found;
}

export function createPlayLinkFastPath(deps: Deps): FastPath {
  const { counter } = deps.playLinks;
  const latency = deps.metrics.httpRequests.labels('GET', '/p/:token.mp3', '302');
  const redirect = (req: IncomingMessage, res: ServerResponse, link: ResolvedPlayLink, started: number) => {
    if (isPlayStart('GET', rawHeader(req, 'range'))) counter.add(link.token);
    const headers = (link.redirectHeaders ??= redirectHeadersOf(link));
    headers[headers.length - 1] = requestIdOf(rawHeader(req, 'x-request-id'));
    res.writeHead(302, headers);
    res.end();
    latency.observe((performance.now() - started) / 1000);
  };
  return (req, res, next) => {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith('/p/') || !url.endsWith('.mp3')) return next();
    const token = url.slice(3, -4);
    if (!TOKEN_SHAPE.test(token)) return next();
    const started = performance.now();
    const resolved = resolvePlayLink(deps, token, true);
    if (resolved === null) return next();
    if (!(resolved instanceof Promise)) return redirect(req, res, resolved, started);
    resolved.then(
      (link) => (link ? redirect(req, res, link, started) : next()),
      () => next(),
    );
  };
}
