import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { type AuthContext, authenticate } from '../features/api-keys/service.js';

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

/** onRequest hook for API-key routes: sets `request.auth` or fails with a 401. */
export const requireApiKey = (deps: Deps) => async (request: FastifyRequest) => {
  request.auth = await authenticate(deps, request.headers.authorization);
};

/** The caller's account, for handlers behind `requireApiKey`. */
export function accountOf(request: FastifyRequest): string {
  if (!request.auth) throw new Error('route is missing requireApiKey');
  return request.auth.accountId;
}
