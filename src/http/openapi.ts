/**
 * OpenAPI 3.1 document generated from the route schemas (`GET /v1/openapi.json`) and an
 * interactive reference at `/docs` (Swagger UI, served from our own origin: no third-party scripts).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { FRAME_ANCESTORS_NONE, pageSecurityHeaders } from './security-headers.js';

export async function registerOpenApi(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'voicename API',
        version: '1.0.0',
        description:
          'Collections of people, their recorded name pronunciations as play links, and signed webhooks. ' +
          'Authenticate with `Authorization: Bearer <API_KEY>`. Errors use the envelope ' +
          '`{"error": {"type", "code", "message", "param"?, "request_id"}}`.',
      },
      servers: [{ url: config.baseUrl }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key, `vn_…`.' } },
      },
    },
    // Only documented API routes (/v1 and the paid entity API); health checks and pages stay out.
    transform: ({ schema, url, route }) => {
      const hidden = !(url.startsWith('/v1/') || url.startsWith('/api/entities/')) || url === '/v1/openapi.json';
      const secured = url.startsWith('/v1/') && !hidden;
      return {
        schema: {
          ...schema,
          hide: hidden || (schema as { hide?: boolean } | undefined)?.hide,
          ...(secured ? { security: [{ apiKey: [] }] } : {}),
        },
        url,
        route,
      } as never;
    },
  });
  // The reference's pages get the headers of every page; Swagger UI writes its own CSP (it
  // hashes its inline scripts), with framing refused like everywhere else.
  const headers = pageSecurityHeaders({ csp: null, https: config.baseUrl.startsWith('https:') });
  await app.register(async (docs) => {
    docs.addHook('onRequest', async (_request, reply) => {
      reply.headers(headers);
    });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: true,
      transformStaticCSP: (csp) => csp.replace("frame-ancestors 'self'", FRAME_ANCESTORS_NONE),
      uiConfig: { url: '/v1/openapi.json' },
    });
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
