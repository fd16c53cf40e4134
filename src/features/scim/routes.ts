/**
 * SCIM 2.0 at /scim/v2 (RFC 7644): Users, Groups and the discovery documents, behind the
 * organisation's SCIM token, rate-limited like API keys, every write audit-logged with the token
 * as its actor. Bodies are `application/scim+json` (or `application/json`) under the app's body
 * limit; answers are `application/scim+json`, failures SCIM's error body (src/http/error-handler.ts).
 */
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { tooDeepError } from '../../http/json-body.js';
import { jsonNestingExceeds } from '../../lib/json-depth.js';
import { listOf, resourceTypes, schemas, serviceProviderConfig } from './discovery.js';
import {
  createScimGroup,
  deleteScimGroup,
  getScimGroup,
  listScimGroups,
  patchScimGroup,
  replaceScimGroup,
} from './group-service.js';
import type { Json } from './resources.js';
import { authenticateScimToken } from './token-service.js';
import {
  createScimUser,
  deleteScimUser,
  getScimUser,
  type ListQuery,
  listScimUsers,
  patchScimUser,
  replaceScimUser,
} from './user-service.js';

const SCIM_MEDIA_TYPE = 'application/scim+json';

type IdRequest = FastifyRequest<{ Params: { id: string }; Querystring: ListQuery }>;

function send(reply: FastifyReply, status: number, body: unknown) {
  const meta = (body as { meta?: { version?: string } }).meta;
  if (meta?.version) reply.header('etag', meta.version);
  return reply.code(status).type(SCIM_MEDIA_TYPE).send(body);
}

function created(reply: FastifyReply, resource: Json) {
  const meta = resource.meta as { location: string };
  reply.header('location', meta.location);
  return send(reply, 201, resource);
}

const callerOf = (request: FastifyRequest) => {
  if (!request.auth) throw new Error('SCIM route without its token hook');
  const { accountId, apiKeyId, apiKeyPrefix, apiKeyName } = request.auth;
  return { accountId, tokenId: apiKeyId, prefix: apiKeyPrefix, name: apiKeyName };
};

const ifMatch = (request: FastifyRequest) => {
  const value = request.headers['if-match'];
  return typeof value === 'string' ? value : undefined;
};

export const scimRoutes = (deps: Deps) => async (app: FastifyInstance) => {
  // The same parser as application/json (nesting check, prototype-poisoning checks) for SCIM's own media type.
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser(SCIM_MEDIA_TYPE, { parseAs: 'string' }, (request, body, done) => {
    if (jsonNestingExceeds(body as string)) {
      done(tooDeepError(), undefined);
      return;
    }
    void parse(request, body as string, done);
  });

  app.addHook('onRequest', async (request) => {
    const caller = await authenticateScimToken(deps, request.headers.authorization);
    // The token acts like an API key: the rate limiter keys on it and the audit log names it.
    request.auth = {
      accountId: caller.accountId,
      apiKeyId: caller.tokenId,
      apiKeyPrefix: caller.prefix,
      apiKeyName: caller.name ?? 'SCIM token',
    };
  });
  await registerRateLimit(app, 'scim', {
    ...deps.rateLimits.options('scim'),
    hook: 'preHandler',
    max: deps.config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => request.auth?.apiKeyId ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
        headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
      }),
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });

  // --- Discovery ---------------------------------------------------------------------------
  const base = deps.config.baseUrl;
  app.get('/ServiceProviderConfig', async (_request, reply) => send(reply, 200, serviceProviderConfig(base)));
  app.get('/ResourceTypes', async (_request, reply) => send(reply, 200, listOf(resourceTypes(base))));
  app.get('/ResourceTypes/:id', async (request: IdRequest, reply) => {
    const found = resourceTypes(base).find((type) => type.id === request.params.id);
    if (!found) throw new AppError('resource_missing', `No resource type ${request.params.id}.`);
    return send(reply, 200, found);
  });
  app.get('/Schemas', async (_request, reply) => send(reply, 200, listOf(schemas(base))));
  app.get('/Schemas/:id', async (request: IdRequest, reply) => {
    const found = schemas(base).find((schema) => schema.id === request.params.id);
    if (!found) throw new AppError('resource_missing', `No schema ${request.params.id}.`);
    return send(reply, 200, found);
  });

  // --- Users -------------------------------------------------------------------------------
  app.get('/Users', async (request: FastifyRequest<{ Querystring: ListQuery }>, reply) =>
    send(reply, 200, await listScimUsers(deps, callerOf(request), request.query)),
  );
  app.post('/Users', { config: { audit: 'scim_user.created' } }, async (request, reply) =>
    created(reply, await createScimUser(deps, callerOf(request), request.body)),
  );
  app.get('/Users/:id', async (request: IdRequest, reply) =>
    send(reply, 200, await getScimUser(deps, callerOf(request), request.params.id, request.query)),
  );
  app.put('/Users/:id', { config: { audit: 'scim_user.replaced' } }, async (request: IdRequest, reply) =>
    send(reply, 200, await replaceScimUser(deps, callerOf(request), request.params.id, request.body, ifMatch(request))),
  );
  app.patch('/Users/:id', { config: { audit: 'scim_user.patched' } }, async (request: IdRequest, reply) =>
    send(reply, 200, await patchScimUser(deps, callerOf(request), request.params.id, request.body, ifMatch(request))),
  );
  app.delete('/Users/:id', { config: { audit: 'scim_user.deleted' } }, async (request: IdRequest, reply) => {
    await deleteScimUser(deps, callerOf(request), request.params.id, ifMatch(request));
    return reply.code(204).send();
  });

  // --- Groups ------------------------------------------------------------------------------
  app.get('/Groups', async (request: FastifyRequest<{ Querystring: ListQuery }>, reply) =>
    send(reply, 200, await listScimGroups(deps, callerOf(request), request.query)),
  );
  app.post('/Groups', { config: { audit: 'scim_group.created' } }, async (request, reply) =>
    created(reply, await createScimGroup(deps, callerOf(request), request.body)),
  );
  app.get('/Groups/:id', async (request: IdRequest, reply) =>
    send(reply, 200, await getScimGroup(deps, callerOf(request), request.params.id, request.query)),
  );
  app.put('/Groups/:id', { config: { audit: 'scim_group.replaced' } }, async (request: IdRequest, reply) =>
    send(reply, 200, await replaceScimGroup(deps, callerOf(request), request.params.id, request.body)),
  );
  app.patch('/Groups/:id', { config: { audit: 'scim_group.patched' } }, async (request: IdRequest, reply) =>
    send(reply, 200, await patchScimGroup(deps, callerOf(request), request.params.id, request.body)),
  );
  app.delete('/Groups/:id', { config: { audit: 'scim_group.deleted' } }, async (request: IdRequest, reply) => {
    await deleteScimGroup(deps, callerOf(request), request.params.id);
    return reply.code(204).send();
  });

  // `/Bulk` and `/Me` are not offered: said as SCIM's 501 (ServiceProviderConfig says bulk is unsupported).
  app.post('/Bulk', { config: { audit: { exempt: 'refused: bulk operations are not supported' } } }, async () => {
    throw new AppError('not_implemented', 'Bulk operations are not supported.', { status: 501 });
  });
  app.get('/Me', async () => {
    throw new AppError(
      'not_implemented',
      'The /Me endpoint is not supported: a SCIM token acts for an organisation, not a person.',
      {
        status: 501,
      },
    );
  });
};
