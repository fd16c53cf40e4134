/**
 * The agent-facing entity API under SITE_URL, in its own encapsulated plugin: its own error
 * handler (the spec's bodies, never the /v1 envelope), its own body limit, a rate limit on the
 * unpaid path (P15) and `Cache-Control: no-store` on every generation answer (P12).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { SandboxPaymentProvider } from '../../integrations/payments/sandbox.js';
import {
  API_CATALOG_LINK,
  API_CATALOG_PATH,
  API_CATALOG_TYPE,
  buildApiCatalog,
  buildApiIndex,
  buildGenerateIndex,
  buildLlmsFullTxt,
  describedByLink,
} from './catalog.js';
import { buildDiscoveryDocument, buildLlmsTxt } from './discovery.js';
import { answerAgentErrors, GENERATE_BODY_LIMIT } from './http.js';
import { paymentInfo } from './mpp.js';
import { buildAgentOpenApi } from './openapi.js';
import { parsePaymentAuthorization } from './payment-header.js';
import { SCHEMA_PATH } from './request-schema.js';
import {
  GenerateBody,
  InvalidRequestResponse,
  PaymentRequiredResponse,
  PublishedResponse,
  SlugParams,
  StatusResponse,
} from './schemas.js';
import { deleteEntity, generateEntity, type Published } from './service.js';
import { agentApiUrls } from './urls.js';

const etagOf = (text: string) => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;

function sendCacheableJson(request: FastifyRequest, reply: FastifyReply, text: string, contentType: string) {
  const etag = etagOf(text);
  reply
    .header('cache-control', 'public, max-age=300')
    .header('etag', etag)
    .header('access-control-allow-origin', '*')
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  return reply.type(contentType).send(text);
}

function sendPublished(reply: FastifyReply, published: Published) {
  reply.header('cache-control', 'no-store').header('payment-receipt', published.receipt);
  if (published.paymentResponse) reply.header('payment-response', published.paymentResponse);
  if (published.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(200).send(published.body);
}

export const agentApiRoutes = (deps: Deps) => async (app: FastifyInstance) => {
  const urls = agentApiUrls(deps);
  const tags = ['Entities (agents)'];
  const servers = [{ url: deps.config.siteUrl }];

  // Bodies are validated by the served JSON Schema in the service; route schemas only document.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Services throw agent API `AppError`s; Fastify's own failures are mapped to the same 400 (http.ts).
  answerAgentErrors(app, deps);
  app.addHook('onClose', async () => {
    await deps.speech.close();
  });

  app.get('/.well-known/service-agent-services.json', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildDiscoveryDocument(deps), null, 2),
      'application/json; charset=utf-8',
    ),
  );
  // MPP discovery: the agent API's OpenAPI document at the site's root.
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildAgentOpenApi(deps), null, 2),
      'application/json; charset=utf-8',
    ),
  );
  app.get(SCHEMA_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply, JSON.stringify(deps.agentApi.schema, null, 2), 'application/schema+json'),
  );
  app.get('/llms.txt', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply.header('link', API_CATALOG_LINK), buildLlmsTxt(deps), 'text/plain; charset=utf-8'),
  );
  app.get('/llms-full.txt', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply.header('link', API_CATALOG_LINK), buildLlmsFullTxt(deps), 'text/plain; charset=utf-8'),
  );
  // RFC 9727: the catalog answers GET (Fastify adds HEAD) and names itself in a Link header.
  app.get(API_CATALOG_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildApiCatalog(deps), null, 2),
      API_CATALOG_TYPE,
    ),
  );
  // The catalog's items are the APIs' bases: each answers GET with what it is and where its
  // description and documentation are (also as Link headers), without a key.
  app.get('/v1', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', describedByLink(`${deps.config.baseUrl}/v1/openapi.json`, `${deps.config.baseUrl}/docs`, 'text/html')),
      JSON.stringify(buildApiIndex(deps), null, 2),
      'application/json; charset=utf-8',
    ),
  );

  // The JSON API under /api/entities, with its own not-found answer (never the /v1 envelope).
  await app.register(
    async (api) => {
      api.setNotFoundHandler((request, reply) =>
        reply
          .code(404)
          .header('cache-control', 'no-store')
          .send({
            status: 'not_found',
            message: `No route ${request.method} ${request.url.split('?')[0]}. See ${urls.discovery}.`,
          }),
      );

      api.get('/generate', { schema: { hide: true } }, async (request, reply) =>
        sendCacheableJson(
          request,
          reply.header('link', describedByLink(`${urls.site}/openapi.json`, urls.docs, 'text/plain')),
          JSON.stringify(buildGenerateIndex(deps), null, 2),
          'application/json; charset=utf-8',
        ),
      );

      api.post(
        '/generate',
        {
          bodyLimit: GENERATE_BODY_LIMIT,
          schema: {
            tags,
            servers,
            summary: 'Generate and publish an entity profile (paid: 1.00 AUD)',
            description:
              `No API key. Send the body without payment: 402 with \`mpp_instruction\`. Pay the intent, then repeat the exact request with ` +
              `\`Payment-Authorization: mpp; reference="<payment_intent_id>"\`, or answer a \`WWW-Authenticate: Payment\` ` +
              `challenge with \`Authorization: Payment <credential>\`. Rules: ${urls.schema}.`,
            security: [],
            'x-payment-info': paymentInfo(deps),
            headers: {
              type: 'object',
              properties: {
                'payment-authorization': {
                  type: 'string',
                  description: 'mpp; reference="<payment_intent_id>", or Payment <base64url credential>',
                },
                authorization: { type: 'string', description: 'Payment <base64url credential> (MPP)' },
                ...(deps.config.x402
                  ? { 'payment-signature': { type: 'string', description: 'x402 v2 payment payload, base64 JSON' } }
                  : {}),
              },
            },
            body: GenerateBody,
            response: {
              200: PublishedResponse,
              400: InvalidRequestResponse,
              402: PaymentRequiredResponse,
              409: StatusResponse,
              410: StatusResponse,
              429: StatusResponse,
              503: StatusResponse,
            },
          } as never,
        },
        async (request, reply) => {
          const published = await generateEntity(deps, {
            body: request.body,
            credential: parsePaymentAuthorization(request.raw),
            // The unpaid budget's fields go on this answer (the 402), as they go on its 429.
            admitUnpaid: async () => void reply.headers(await deps.agentApi.admitUnpaidFrom(request.ip)),
          });
          return sendPublished(reply, published);
        },
      );

      api.delete<{ Params: { slug: string } }>(
        '/:slug',
        {
          schema: {
            tags,
            servers,
            summary: 'Delete a published entity',
            description: 'Header `Deletion-Token: <receipt.deletion_token>`. Afterwards the profile URLs answer 410.',
            security: [],
            params: SlugParams,
            response: { 200: StatusResponse, 401: StatusResponse, 403: StatusResponse, 404: StatusResponse, 410: StatusResponse },
          } as never,
        },
        async (request, reply) => {
          const header = request.headers['deletion-token'];
          const token = typeof header === 'string' ? header : undefined;
          await deleteEntity(deps, request.params.slug, token);
          return reply.header('cache-control', 'no-store').send({
            status: 'deleted',
            slug: request.params.slug,
            message: 'The profile, its audio and its machine-readable document are gone.',
          });
        },
      );
    },
    { prefix: '/api/entities' },
  );

  if (deps.payments instanceof SandboxPaymentProvider) {
    const sandbox = deps.payments;
    app.post<{ Params: { id: string } }>(
      '/api/sandbox/payment-intents/:id/confirm',
      { bodyLimit: 4096, schema: { hide: true } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const body = (request.body ?? {}) as { client_secret?: unknown; payment_method?: unknown };
        const method = body.payment_method ?? 'pm_card_visa';
        if (typeof body.client_secret !== 'string' || (method !== 'pm_card_visa' && method !== 'pm_card_chargeDeclined')) {
          return reply.code(400).send({
            status: 'invalid_request',
            message:
              'Send {"client_secret": "<mpp_instruction.address>"} and optionally "payment_method": "pm_card_visa" or "pm_card_chargeDeclined".',
          });
        }
        const result = await sandbox.confirm(request.params.id, body.client_secret, method);
        const view = (intent: { id: string; status: string; amount: number; currency: string }) => ({
          id: intent.id,
          object: 'payment_intent',
          status: intent.status,
          amount: intent.amount,
          currency: intent.currency,
        });
        switch (result.kind) {
          case 'confirmed':
            return reply.send(view(result.intent));
          case 'declined':
            return reply.code(402).send({
              status: 'card_declined',
              message: 'Your card was declined (test card).',
              payment_intent: view(result.intent),
            });
          case 'wrong_state':
            return reply.code(409).send({
              status: 'unexpected_state',
              message: `The intent is ${result.intent.status}.`,
              payment_intent: view(result.intent),
            });
          case 'not_found':
            return reply.code(404).send({ status: 'not_found', message: 'No payment intent with this id and client secret.' });
        }
      },
    );
  }
};
