import type { IncomingMessage } from 'node:http';
import { randomToken } from '../lib/ids.js';

const CLIENT_ID = /^[A-Za-z0-9._:-]{8,64}$/;

/** Keeps a well-formed `X-Request-Id` from a proxy or client; otherwise makes one. */
export function requestIdFor(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  if (typeof incoming === 'string' && CLIENT_ID.test(incoming)) return incoming;
  return `req_${randomToken(12)}`;
}
