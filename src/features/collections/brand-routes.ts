/** `GET /brand/<rrggbb>.css`: a collection's brand colour as a style sheet (see `brandStyleUrl`). */
import type { FastifyInstance } from 'fastify';
import { brandStyleSheet } from './brand-color.js';

const SHEET_NAME = /^([0-9a-f]{6})\.css$/;

export const brandRoutes = () => async (app: FastifyInstance) => {
  app.get<{ Params: { file: string } }>('/brand/:file', { schema: { hide: true } }, async (request, reply) => {
    const hex = SHEET_NAME.exec(request.params.file)?.[1];
    if (hex === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .type('text/css; charset=utf-8')
      .send(brandStyleSheet(`#${hex}`));
  });
};
