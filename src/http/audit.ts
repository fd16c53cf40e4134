/**
 * The audit log's one writer. A route names its action in its config, one line:
 *
 *   app.delete('/webhooks/:webhook_id', { config: { audit: 'webhook.deleted' }, schema }, handler)
 *
 * and when a request of that route succeeds (status below 400, not an idempotent replay) this
 * hook appends who (the dashboard member, or the API key's prefix and name), the action, which
 * object, when and from which address to the organisation's log. The object is what the handler
 * named with `auditObject(request, id)`, else the route's last URL parameter, else the `id` of
 * the JSON answer (a created object); `auditDetail` adds what was decided (a review's decision and
 * note), and `auditEach` writes one entry per object of a bulk change instead. A mutating route that changes no organisation data says
 * why instead: `config: { audit: { exempt: 'signs the browser out' } }`; tests/audit.test.ts
 * fails for a mutating route with neither.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.js';
import { type AuditActor, type AuditDetail, recordAudit } from '../features/audit/service.js';

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
    /** What the entry decided beyond its action (set with `auditDetail`). */
    auditDetails: AuditDetail | null;
    /** A bulk change: one entry per object (set with `auditEach`), instead of the one entry. */
    auditEntries: { objectId: string; detail: AuditDetail | null }[] | null;
  }
}

/** Names the object of this request's audit entry (e.g. the id of what the handler created). */
export function auditObject(request: FastifyRequest, id: string): void {
  request.auditObjectId = id;
}

/** Adds what this request decided to its audit entry (e.g. a review's decision and note). */
export function auditDetail(request: FastifyRequest, detail: AuditDetail): void {
  request.auditDetails = detail;
}

/** A bulk change: one audit entry per object it changed, each with its detail (none at all when the list is empty). */
export function auditEach(request: FastifyRequest, entries: { objectId: string; detail: AuditDetail | null }[]): void {
  request.auditEntries = entries;
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
  app.decorateRequest('auditDetails', null);
  app.decorateRequest('auditEntries', null);
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
      const entries = request.auditEntries ?? [{ objectId: objectOf(request, payload), detail: request.auditDetails }];
      for (const entry of entries) await recordAudit(deps, { ...who, action, ...entry, ip: request.ip });
    } catch (err) {
      // The change itself succeeded and is committed: answer it, and say loudly that the log missed it.
      request.log.error({ err, action }, 'audit entry could not be written');
    }
    return payload;
  });
}
