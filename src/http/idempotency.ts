/**
 * `Idempotency-Key` for POST requests on /v1: the hooks around the idempotency service.
 * Register inside an authenticated scope (it needs `request.auth`).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { AppError } from '../errors.js';
import { abandonIdempotentRequest, beginIdempotentRequest, finishIdempotentRequest } from '../features/idempotency/service.js';
import { canonicalJson } from '../lib/canonical-json.js';

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey: string | null;
  }
}

const KEY = /^[\x21-\x7e]{1,255}$/;

function requestHash(request: FastifyRequest): string {
  const hash = createHash('sha256').update(`${request.method} ${request.url}\n`);
  const body = request.body;
  if (Buffer.isBuffer(body) || typeof body === 'string') hash.update(body);
  else hash.update(canonicalJson(body ?? null));
  return hash.digest('hex');
}

export function registerIdempotency(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('idempotencyKey', null);

  app.addHook('preHandler', async (request, reply) => {
    const header = request.headers['idempotency-key'];
    if (request.method !== 'POST' || header === undefined || !request.auth) return;
    if (typeof header !== 'string' || !KEY.test(header)) {
      throw new AppError('parameter_invalid', 'Idempotency-Key must be 1 to 255 visible ASCII characters.', {
        param: 'Idempotency-Key',
      });
    }
    const start = await beginIdempotentRequest(deps, {
      accountId: request.auth.accountId,
      key: header,
      requestHash: requestHash(request),
    });
    if (start.kind === 'replay') {
      if (start.location !== null) reply.header('location', start.location);
      return reply
        .code(start.status)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(start.body);
    }
    request.idempotencyKey = header;
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const key = request.idempotencyKey;
    if (key === null || !request.auth) return payload;
    request.idempotencyKey = null;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await abandonIdempotentRequest(deps, request.auth.accountId, key);
    } else {
      const location = reply.getHeader('location');
      await finishIdempotentRequest(deps, request.auth.accountId, key, {
        status: reply.statusCode,
        body: payload,
        location: typeof location === 'string' ? location : null,
      });
    }
    return payload;
  });
}
