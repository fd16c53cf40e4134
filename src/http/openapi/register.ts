/**
 * The OpenAPI 3.1 document (`GET /v1/openapi.json`), generated from the route schemas by
 * @fastify/swagger and finished by `completeDocument`. The reference and guides that render it
 * live at `/docs` (features/docs).
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { completeDocument, type DocumentContributions } from './document.js';

// The licence of this description (as API descriptions usually are), not of the service.
const LICENSE = { name: 'MIT', identifier: 'MIT' };

export async function registerOpenApi(app: FastifyInstance, config: Config, extra: DocumentContributions): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'voicename API',
        version: '1.0.0',
        description:
          'Collections of people, their recorded name pronunciations as play links, and signed webhooks. ' +
          'Authenticate with `Authorization: Bearer <API_KEY>`. Errors use the envelope ' +
          '`{"error": {"type", "code", "message", "param"?, "request_id"}}`. Guides: `/docs`.',
        contact: { name: 'voicename API', url: `${config.baseUrl}/docs` },
        license: LICENSE,
      },
      servers: [{ url: config.baseUrl, description: 'BASE_URL: the REST API and play links' }],
      components: {
        securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'An API key, `vn_…`.' } },
      },
    },
    // Fastify describes the /v1 routes; the other documented routes come from `extra.paths`.
    transform: ({ schema, url, route }) => {
      const hidden = !url.startsWith('/v1/') || url === '/v1/openapi.json';
      return {
        schema: { ...schema, hide: hidden || (schema as { hide?: boolean } | undefined)?.hide },
        url,
        route,
      } as never;
    },
    transformObject: (documentObject) =>
      completeDocument((documentObject as { openapiObject: never }).openapiObject, config, extra) as never,
  });
  let document: string | undefined;
  app.get('/v1/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((document ??= JSON.stringify(app.swagger()))),
  );
}
