/**
 * The HTTP application: every plugin and feature is registered here, explicitly and in order.
 * `buildApp` does no I/O at import time and takes all adapters from `deps`, so tests build it
 * with a fresh database and `app.inject`, and `main.ts` with the real ones.
 */
import http from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { type Deps, warmUpDeps } from './deps.js';
import { AppError } from './errors.js';
import { collectionsRoutes } from './features/collections/routes.js';
import { dashboardRoutes } from './features/dashboard/routes.js';
import { ltiRoutes } from './features/lti/routes.js';
import { docsRoutes } from './features/docs/routes.js';
import { recorderRoutes } from './features/recordings/recorder-routes.js';
import { recordingsRoutes } from './features/recordings/routes.js';
import { usersRoutes } from './features/users/routes.js';
import { webhooksRoutes } from './features/webhooks/routes.js';
import { agentApiRoutes } from './features/agent-api/routes.js';
import { profileRoutes } from './features/profiles/routes.js';
import { exportsRoutes } from './features/exports/routes.js';
import { erasureRoutes } from './features/erasure/routes.js';
import { registerErasedTokenAnswers } from './features/erasure/gone.js';
import { createPlayLinkFastPath } from './features/play-links/fast-path.js';
import { registerLogoRoutes } from './features/collections/logo-routes.js';
import { mcpRoutes } from './features/mcp/routes.js';
import { invitationsRoutes } from './features/invitations/routes.js';
import { unsubscribeRoutes } from './features/invitations/public-routes.js';
import { registerPlayLinkPublicRoutes } from './features/play-links/public-routes.js';
import { registerPronunciationPublicRoutes } from './features/pronunciation/public-routes.js';
import { playLinkImageRoutes } from './features/play-links/image-routes.js';
import { playLinksRoutes } from './features/play-links/routes.js';
import { siteRoutes } from './features/site/routes.js';
import { brandRoutes } from './features/collections/brand-routes.js';
import { scimRoutes } from './features/scim/routes.js';
import { registerAuditLog } from './http/audit.js';
import { requireApiKey } from './http/auth.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerRateLimit } from './http/rate-limit-fields.js';
import { registerBodyTimeout } from './http/body-timeout.js';
import { registerJsonParser } from './http/json-body.js';
import { registerUnreadBodyDiscard } from './http/unread-body.js';
import { registerRequestMetrics } from './http/metrics.js';
import { registerOpenApi } from './http/openapi/register.js';
import { apiDocumentContributions } from './api-document.js';
import { requestIdFor } from './http/request-id.js';
import { registerRouteCatalogue } from './http/route-catalogue.js';
import { registerPageSecurity } from './http/security-headers.js';
import { validatorCompiler } from './http/validation.js';
import { registerAssetRoutes } from './web/assets.js';

export async function buildApp(deps: Deps): Promise<FastifyInstance> {
  const { config } = deps;
  const playLinkFastPath = createPlayLinkFastPath(deps);
  const app = Fastify({
    // Cached `/p/<token>.mp3` redirects are answered before routing (see play-links/fast-path.ts).
    // Fastify applies its own keep-alive and timeouts only to servers it creates: set them here.
    serverFactory: (handler) => {
      const server = http.createServer((req, res) => playLinkFastPath(req, res, () => handler(req, res)));
      // Longer than load balancers keep idle connections (AWS ALB: 60 s), so they never reuse a
      // connection this server just closed (intermittent 502s).
      server.keepAliveTimeout = config.keepAliveTimeoutMs;
      server.headersTimeout = Math.min(config.requestTimeoutMs, 60_000);
      // A backstop only: each route's body budget is enforced by registerBodyTimeout.
      server.requestTimeout = Math.max(config.requestTimeoutMs, config.uploadTimeoutMs) + 5_000;
      return server;
    },
    // The lint rule calls this cast unnecessary, but without it Fastify infers pino's Logger as the
    // instance's logger type and the route plugins (typed for FastifyBaseLogger) no longer fit.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'request_id' }),
    bodyLimit: config.jsonBodyLimit,
    trustProxy: config.trustProxy,
    // While closing, a request that reached an accepted connection is served, not refused with a
    // 503: the drain (main.ts) has already taken this process out of the load balancer.
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First, so that every route and hook registered after it is traced.
  if (deps.tracing) await app.register(deps.tracing.fastifyPlugin);
  registerRouteCatalogue(app);
  app.setValidatorCompiler(validatorCompiler);
  // JSON only by default; routes that take other bodies (audio, CSV) register their own parsers.
  app.removeContentTypeParser('text/plain');
  registerJsonParser(app);
  registerErrorHandling(app);
  registerBodyTimeout(app, config.requestTimeoutMs);
  registerUnreadBodyDiscard(app, config.requestTimeoutMs);
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    // API answers carry secrets (webhook secrets, record links): no cache may keep them.
    if (request.url.startsWith('/v1/')) reply.header('cache-control', 'no-store');
  });
  app.decorateRequest('auth', null);
  registerAuditLog(app, deps);
  app.addHook('onReady', () => deps.rateLimits.ready());
  // After listen, not before: a restarted process answers at once, and warms up meanwhile.
  if (deps.config.warmUp) app.addHook('onListen', () => void warmUpDeps(deps));

  // Before every page route: pages set their security headers through it (applyPageSecurity).
  await registerPageSecurity(app);
  await registerOpenApi(app, config, apiDocumentContributions(deps));
  await app.register(docsRoutes(deps));

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    if (deps.lifecycle.draining) return reply.code(503).send({ status: 'shutting down' });
    const ready = await deps.db.ping();
    // `warm`: whether the background warm-up (WARM_UP) has finished; readiness never waits for it.
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'database unavailable', warm: deps.lifecycle.warm });
  });

  // With METRICS_PORT the metrics have their own server (main.ts); the API port never shows them.
  registerRequestMetrics(app, deps.metrics, config.metricsPort === null ? config.metricsToken : null);
  registerAssetRoutes(app, deps.assets);
  // The product page at `/` and the favicons.
  await app.register(siteRoutes(deps));
  await app.register(brandRoutes());
  await app.register(recorderRoutes(deps, { perMinute: config.recorderRateLimitPerMinute }));
  // Agent API under SITE_URL, and the profiles it publishes: the spec's error bodies (section 7),
  // the API's body limit, the unpaid path's and the card's rate limits.
  await app.register(agentApiRoutes(deps));
  await app.register(profileRoutes(deps));
  await app.register(mcpRoutes(deps));
  registerErasedTokenAnswers(app, deps);
  registerPlayLinkPublicRoutes(app, deps);
  registerPronunciationPublicRoutes(app, deps);
  registerLogoRoutes(app, deps);
  await app.register(unsubscribeRoutes(deps));
  await app.register(playLinkImageRoutes(deps));
  await app.register(dashboardRoutes(deps), { prefix: '/dashboard' });
  // SCIM provisioning: its own token, media type and error body (src/features/scim).
  await app.register(scimRoutes(deps), { prefix: '/scim/v2' });
  await app.register(ltiRoutes(deps));

  await app.register(
    async (v1) => {
      v1.addHook('onRequest', requireApiKey(deps));
      await registerRateLimit(v1, 'v1', {
        ...deps.rateLimits.options('v1'),
        hook: 'preHandler',
        max: config.rateLimitPerMinute,
        timeWindow: 60_000,
        keyGenerator: (request) => request.auth?.apiKeyId ?? request.ip,
        errorResponseBuilder: (_request, context) =>
          new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
            headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
          }),
      });
      registerIdempotency(v1, deps);
      await v1.register(collectionsRoutes(deps));
      await v1.register(erasureRoutes(deps));
      await v1.register(usersRoutes(deps));
      await v1.register(invitationsRoutes(deps));
      await v1.register(recordingsRoutes(deps));
      await v1.register(webhooksRoutes(deps));
      await v1.register(playLinksRoutes(deps));
      await v1.register(exportsRoutes(deps));
    },
    { prefix: '/v1' },
  );

  return app;
}
