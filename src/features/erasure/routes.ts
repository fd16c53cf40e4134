import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { ErasureList, ListErasuresQuery } from './schemas.js';
import { listAccountErasures } from './service.js';

export const erasureRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/erasures',
      {
        schema: {
          tags: ['Erasures'],
          operationId: 'erasures.list',
          summary: 'List erasures',
          description:
            'Proof that erasures happened (what kind, when, by which key, member or the retention window, how many objects), ' +
            'newest first. Free of personal data, kept for as long as the organisation exists.',
          querystring: ListErasuresQuery,
          response: { 200: ErasureList, 400: ErrorResponse, 401: ErrorResponse },
        },
      },
      async (request) => listAccountErasures(deps, accountOf(request), request.query),
    );
  };
