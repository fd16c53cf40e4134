/**
 * The audit log's one writer. A route names its action in its config, one line:
 *
 *   app.delete('/webhooks/:webhook_id', { config: { audit: 'webhook.deleted' }, schema }, handler)
 *
 * and when a request of that route succeeds (status below 400, not an idempotent replay) this
 * hook appends who (the dashboard member, or the API key's prefix and name), the action, which
 * object, when and from which address to the organisation's log. The object is what the handler
 * named with `auditObject(request, id)`, else the route's last URL parameter, else the `id` of
 * the JSON answer (a created object). A mutating route that changes no organisation data says
 * why instead: `config: { audit: { exempt: 'signs the browser out' } }`; tests/audit.test.ts
 * fails for a mutating route with neither.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { type AuditActor, recordAudit } from '../features/audit/service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Mutating routes: the audit action written on success (`noun.past_verb`), or why the route is not audited. */
    audit?: string | { exempt: string };
  }
  interface FastifyRequest {
    /** The object the audit entry names, when the route's URL does not (set with `auditObject`). */
    auditObjectId: string | null;
    /** Set by `auditNothing`. */
    auditSkipped: boolean;
  }
}

/** Names the object of this request's audit entry (e.g. the id of what the handler created). */
export function auditObject(request: FastifyRequest, id: string): void {
  request.auditObjectId = id;
}

/** This request changed nothing after all (e.g. a form shown again with more rows): no entry. */
export function auditNothing(request: FastifyRequest): void {
  request.auditSkipped = true;
}

/** Answers larger than this are not parsed for a created object's id. */
const MAX_PARSED_ANSWER = 64 * 1024;

function objectOf(request: FastifyRequest, payload: unknown): string | null {
  if (request.auditObjectId !== null) return request.auditObjectId;
  const params = Object.values((request.params ?? {}) as Record<string, unknown>).filter((v) => typeof v === 'string');
  if (params.length > 0) return params[params.length - 1] as string;
  if (typeof payload === 'string' && payload.startsWith('{') && payload.length <= MAX_PARSED_ANSWER) {
    try {
      const id = (JSON.parse(payload) as { id?: unknown }).id;
      if (typeof id === 'string') return id;
    } catch {}
  }
  return null;
}

function actorOf(request: FastifyRequest): { accountId: string; actor: AuditActor } | null {
  if (request.auth) {
    const { accountId, apiKeyPrefix, apiKeyName } = request.auth;
    return { accountId, actor: { kind: 'api_key', prefix: apiKeyPrefix, name: apiKeyName } };
  }
  const session = request.dashboard;
  if (session) return { accountId: session.account.id, actor: { kind: 'member', email: session.member.email } };
  return null;
}

/** Registers the writer on the root instance (it sees every route). */
export function registerAuditLog(app: FastifyInstance, deps: Deps): void {
  app.decorateRequest('auditObjectId', null);
  app.decorateRequest('auditSkipped', false);
  app.addHook('onSend', async (request, reply, payload) => {
    const action = request.routeOptions.config?.audit;
    if (
      typeof action !== 'string' ||
      request.auditSkipped ||
      reply.statusCode >= 400 ||
      reply.getHeader('idempotent-replayed') !== undefined
    ) {
      return payload;
    }
    const who = actorOf(request);
    if (!who) return payload;
    try {
      await recordAudit(deps, { ...who, action, objectId: objectOf(request, payload), ip: request.ip });
    } catch (err) {
      // The change itself succeeded and is committed: answer it, and say loudly that the log missed it.
      request.log.error({ err, action }, 'audit entry could not be written');
    }
    return payload;
  });
}
