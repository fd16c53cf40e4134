/**
 * `GET /logos/<sha256>.png`: collection logos, public (mail clients and the record and player
 * pages load them), content-addressed and so cached for ever. Only the PNGs we encoded are
 * stored under this prefix.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { readLogo } from './logo-service.js';

export function registerLogoRoutes(app: FastifyInstance, deps: Deps): void {
  app.get<{ Params: { file: string } }>('/logos/:file', { schema: { hide: true } }, async (request, reply) => {
    const png = await readLogo(deps, `logos/${request.params.file}`);
    if (!png) return reply.callNotFound();
    return reply
      .type('image/png')
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', `"${request.params.file.slice(0, 64)}"`)
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'")
      .header('cross-origin-resource-policy', 'cross-origin')
      .send(png);
  });
}
