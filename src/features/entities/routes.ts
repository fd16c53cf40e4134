/**
 * The agent-facing entity API under SITE_URL, in its own encapsulated plugin: its own error
 * handler (the spec's bodies, never the /v1 envelope), its own body limit, a rate limit on the
 * unpaid path (P15) and `Cache-Control: no-store` on every generation answer (P12).
 */
import { createHash } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { contentRange, requestedRange } from '../../http/range.js';
import { sendPicture } from '../../http/picture-response.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { SandboxPaymentProvider } from '../../integrations/payments/sandbox.js';
import { agentError, invalidRequest, isAgentError } from './agent-errors.js';
import type { EntitiesContext } from './context.js';
import { buildDiscoveryDocument, buildLlmsTxt } from './discovery.js';
import { API_CATALOG_LINK, API_CATALOG_PATH, API_CATALOG_TYPE, buildApiCatalog, buildLlmsFullTxt } from './catalog.js';
import { buildAgentOpenApi } from './openapi.js';
import { parsePaymentAuthorization } from './payment-header.js';
import { deleteEntity, findProfile } from './profiles.js';
import { SCHEMA_PATH } from './request-schema.js';
import {
  GenerateBody,
  InvalidRequestResponse,
  PaymentRequiredResponse,
  PublishedResponse,
  SlugParams,
  StatusResponse,
} from './schemas.js';
import { paymentInfo } from './mpp.js';
import { generateEntity, type Published } from './service.js';
import { summarizeReceived } from './validation.js';
import { gonePage, machineReadableProfile, PROFILE_CSP, profileLanguage, profilePage } from './views.js';
import { entityCard, entityCardUrl } from './card.js';

export const GENERATE_BODY_LIMIT = 65_536;

/**
 * The spec's body of an agent API error: `status` is the code, and the fields each kind carries
 * come from `details`, in the order the spec shows them.
 */
function agentErrorBody(context: EntitiesContext, error: AppError): Record<string, unknown> {
  const details = error.details ?? {};
  switch (error.code) {
    case 'invalid_request':
      return {
        status: error.code,
        missing: details.missing,
        invalid: details.invalid,
        message: error.message,
        schema_url: context.urls.schema,
        docs_url: context.urls.docs,
      };
    case 'payment_required':
      return { status: error.code, message: error.message, mpp_instruction: details.mpp_instruction };
    case 'temporarily_unavailable':
      return { status: error.code, payment_status: details.payment_status, message: error.message };
    case 'failed':
      return {
        status: error.code,
        payment_status: details.payment_status,
        message: error.message,
        transaction_id: details.transaction_id,
      };
    default:
      return { status: error.code, message: error.message };
  }
}

/** Parser-level failures (bad JSON, wrong type, too large) as the spec's 400, or null. */
function parserError(error: FastifyError, request: FastifyRequest): AppError | null {
  const problem = parserProblem(error, request);
  if (!problem) return null;
  return invalidRequest(
    { missing: [], invalid: [{ field: 'body', received: problem.received, allowed: problem.allowed }] },
    problem.message,
  );
}

function parserProblem(
  error: FastifyError,
  request: FastifyRequest,
): { received: unknown; allowed: string[]; message: string } | null {
  if (error instanceof AppError && error.code === 'invalid_json') {
    return {
      received: 'JSON nested too deeply',
      allowed: [`a JSON object nested at most ${MAX_JSON_DEPTH} levels deep`],
      message: `The request is invalid: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`,
    };
  }
  switch (error.code) {
    case 'request_timeout': // src/http/body-timeout.ts: a body trickled in too slowly
      return { received: 'an incomplete body', allowed: ['the whole JSON body, sent promptly'], message: error.message };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        received: summarizeReceived(request.headers['content-type'] ?? ''),
        allowed: ['application/json'],
        message: 'The request is invalid: send the body as JSON with Content-Type: application/json.',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        received: `more than ${GENERATE_BODY_LIMIT} bytes`,
        allowed: [`a JSON object of at most ${GENERATE_BODY_LIMIT} bytes`],
        message: `The request is invalid: the body is larger than ${GENERATE_BODY_LIMIT} bytes.`,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        received: '',
        allowed: ['a JSON object'],
        message: 'The request is invalid: the body is empty; send a JSON object.',
      };
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.statusCode === 400) {
    return {
      received: 'malformed JSON',
      allowed: ['a JSON object'],
      message: 'The request is invalid: the body is not valid JSON.',
    };
  }
  if (error.statusCode === 413 || error.statusCode === 415) {
    return {
      received: 'unreadable body',
      allowed: ['a JSON object'],
      message: 'The request is invalid: the body cannot be read.',
    };
  }
  return null;
}

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
  if (published.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(200).send(published.body);
}

export const entitiesRoutes = (context: EntitiesContext) => async (app: FastifyInstance) => {
  const { urls } = context;
  const tags = ['Entities (agents)'];
  const servers = [{ url: context.config.siteUrl }];

  // Bodies are validated by the served JSON Schema in the service; route schemas only document.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Services throw agent API `AppError`s; Fastify's own failures are mapped to the same 400.
  // Cache-Control goes before the error's own headers (Retry-After), as on every answer.
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = isAgentError(error) ? error : parserError(error, request);
    if (known) {
      return reply
        .code(known.status)
        .header('cache-control', 'no-store')
        .headers(known.headers)
        .send(agentErrorBody(context, known));
    }
    request.log.error({ err: error }, 'entity request failed');
    // Not a temporary failure (those are 503 with Retry-After): repeating the same request would
    // most likely fail the same way, so the answer names the request id instead of inviting a retry.
    return reply
      .code(500)
      .header('cache-control', 'no-store')
      .send({
        status: 'error',
        message:
          `Internal error (request id ${request.id}); it has been logged. Repeating this request unchanged is unlikely ` +
          'to help: contact support with the request id. A paid request is never charged twice.',
      });
  });
  app.addHook('onClose', async () => {
    await context.speech.close();
  });

  // The plugin serves the image limit below; the unpaid budget is context.admitUnpaidFrom (shared with MCP).
  await app.register(rateLimit, { ...context.rateLimits.options('entities-images'), global: false });

  app.get('/.well-known/service-agent-services.json', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildDiscoveryDocument(context), null, 2),
      'application/json; charset=utf-8',
    ),
  );
  // MPP discovery: the agent API's OpenAPI document at the site's root.
  app.get('/openapi.json', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildAgentOpenApi(context), null, 2),
      'application/json; charset=utf-8',
    ),
  );
  app.get(SCHEMA_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply, JSON.stringify(context.schema, null, 2), 'application/schema+json'),
  );
  app.get('/llms.txt', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply.header('link', API_CATALOG_LINK), buildLlmsTxt(context), 'text/plain; charset=utf-8'),
  );
  app.get('/llms-full.txt', { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(request, reply.header('link', API_CATALOG_LINK), buildLlmsFullTxt(context), 'text/plain; charset=utf-8'),
  );
  // RFC 9727: the catalog answers GET (Fastify adds HEAD) and names itself in a Link header.
  app.get(API_CATALOG_PATH, { schema: { hide: true } }, async (request, reply) =>
    sendCacheableJson(
      request,
      reply.header('link', API_CATALOG_LINK),
      JSON.stringify(buildApiCatalog(context), null, 2),
      API_CATALOG_TYPE,
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
            'x-payment-info': paymentInfo(context),
            headers: {
              type: 'object',
              properties: {
                'payment-authorization': {
                  type: 'string',
                  description: 'mpp; reference="<payment_intent_id>", or Payment <base64url credential>',
                },
                authorization: { type: 'string', description: 'Payment <base64url credential> (MPP)' },
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
          const published = await generateEntity(context, {
            body: request.body,
            credential: parsePaymentAuthorization(request.raw),
            admitUnpaid: () => context.admitUnpaidFrom(request.ip),
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
          await deleteEntity(context, request.params.slug, token);
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

  if (context.payments instanceof SandboxPaymentProvider) {
    const sandbox = context.payments;
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

  app.get<{ Params: { slug: string } }>('/e/:slug', { schema: { hide: true } }, async (request, reply) => {
    const found = await findProfile(context, request.params.slug);
    applyPageSecurity(reply, { csp: PROFILE_CSP, https: urls.site.startsWith('https:') });
    if (found.kind === 'not_found') return reply.code(404).type('text/plain; charset=utf-8').send('No such profile.');
    if (found.kind === 'gone') return reply.code(410).type('text/html; charset=utf-8').send(gonePage(request.params.slug).value);
    const entity = found.entity;
    if (entity.visibility === 'unlisted') reply.header('x-robots-tag', 'noindex, nofollow');
    const page = { ...profileLanguage(request.headers['accept-language']), cardUrl: entityCardUrl(context, entity) };
    return reply
      .header('cache-control', 'public, max-age=60')
      .header('vary', 'Accept-Language')
      .type('text/html; charset=utf-8')
      .send(profilePage(context, entity, page).value);
  });

  const limitImages = app.rateLimit({
    max: context.config.imageRateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => `entities-images:${request.ip}`,
    errorResponseBuilder: (_request, limit) => {
      const seconds = Math.max(1, Math.ceil(limit.ttl / 1000));
      return agentError('rate_limited', `Too many requests; retry in ${seconds} s.`, { retryAfter: seconds });
    },
  });
  app.get<{ Params: { slug: string }; Querystring: { v?: unknown } }>(
    '/e/:slug/card.png',
    { schema: { hide: true }, onRequest: limitImages },
    async (request, reply) => {
      const found = await findProfile(context, request.params.slug);
      if (found.kind === 'gone') return reply.code(410).type('text/plain; charset=utf-8').send('This profile was deleted.');
      if (found.kind === 'not_found') return reply.code(404).type('text/plain; charset=utf-8').send('No such profile.');
      const version = typeof request.query.v === 'string' ? request.query.v : undefined;
      return sendPicture(request, reply, context.cards.renderer, entityCard(context, found.entity), {
        version,
        maxAgeSeconds: 300,
      });
    },
  );

  app.get<{ Params: { slug: string } }>(
    '/e/:slug/.well-known/service.json',
    { schema: { hide: true } },
    async (request, reply) => {
      const found = await findProfile(context, request.params.slug);
      reply.header('access-control-allow-origin', '*');
      if (found.kind === 'not_found') return reply.code(404).send({ status: 'not_found', message: 'No such profile.' });
      if (found.kind === 'gone') return reply.code(410).send({ status: 'gone', message: 'This profile was deleted.' });
      if (found.entity.visibility === 'unlisted') reply.header('x-robots-tag', 'noindex, nofollow');
      return reply.header('cache-control', 'public, max-age=60').send(machineReadableProfile(context, found.entity));
    },
  );

  app.get<{ Params: { slug: string } }>('/e/:slug/name.mp3', { schema: { hide: true } }, async (request, reply) => {
    const found = await findProfile(context, request.params.slug);
    if (found.kind === 'gone') return reply.code(410).type('text/plain; charset=utf-8').send('This profile was deleted.');
    if (found.kind === 'not_found' || !found.entity.audio_blob_key) {
      return reply.code(404).type('text/plain; charset=utf-8').send('No such audio.');
    }
    return sendAudio(context, request, reply, found.entity.audio_blob_key);
  });
};

/** Serves a stored MP3 with a strong ETag (the key embeds the content hash) and single byte ranges (RFC 9110). */
async function sendAudio(context: EntitiesContext, request: FastifyRequest, reply: FastifyReply, key: string) {
  const info = await context.blobs.stat(key);
  if (!info) return reply.code(404).type('text/plain; charset=utf-8').send('No such audio.');
  const etag = `"${key.split('/').pop()?.replace('.mp3', '')}"`;
  reply
    .header('accept-ranges', 'bytes')
    .header('etag', etag)
    .header('cache-control', 'public, max-age=3600')
    .header('access-control-allow-origin', '*')
    .type('audio/mpeg');
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const range = requestedRange(request.headers, info.size, etag);
  if (range === 'unsatisfiable') return reply.code(416).header('content-range', contentRange(range, info.size)).send();
  if (range) {
    const stream = await context.blobs.stream(key, range);
    return reply
      .code(206)
      .header('content-range', contentRange(range, info.size))
      .header('content-length', String(range.end - range.start + 1))
      .send(stream);
  }
  const stream = await context.blobs.stream(key);
  return reply.header('content-length', String(info.size)).send(stream);
}
