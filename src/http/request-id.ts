import type { IncomingMessage } from 'node:http';
import { randomToken } from '../lib/ids.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{8,64}$/;

// A random per-process prefix and a counter: unique across processes and restarts, and
// cheaper than fresh random bytes on every request of the hot paths.
const PROCESS_PREFIX = `req_${randomToken(6)}`;
let counter = 0;

/** Keeps a well-formed `X-Request-Id` from a proxy or client; otherwise makes one. */
export function requestIdFor(req: IncomingMessage): string {
  return requestIdOf(req.headers['x-request-id']);
}

/** `requestIdFor` given the request's `X-Request-Id` value (for callers that read it from the raw headers). */
export function requestIdOf(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && CLIENT_ID.test(incoming)) return incoming;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PROCESS_PREFIX}${counter.toString(36)}`;
}
