/**
 * Who may use which dashboard route, decided in one place. Every route of the dashboard scope
 * passes the `enforceAccess` preHandler, which reads the route's `access` config; a route that
 * says nothing gets the default (any member may read, only admins and owners may change), so a
 * form added later is refused to viewers without anyone remembering to. Roles are read from the
 * membership at every request: a changed role or a removal takes effect at once.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { type MemberRole, roleAtLeast } from '../accounts/service.js';
import { ORGANISATIONS_PATH, redirect, requireFormToken } from './http.js';

/**
 * `public`: anyone, signed in or not (sign-in pages, invitation links). `signed-in`: any signed-in
 * person, acting in an organisation or not, whatever their role (sign-out, picking and switching
 * the organisation). A role: members of the session's organisation with at least that role
 * (viewer < admin < owner).
 */
export type DashboardAccess = 'public' | 'signed-in' | MemberRole;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Dashboard routes: who may use the route (see `DashboardAccess`); default `viewer` for GET and HEAD, else `admin`. */
    access?: DashboardAccess;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The access a dashboard route requires: its `access` config, else the default for its method. */
export const requiredAccess = (method: string, config: { access?: DashboardAccess } | undefined): DashboardAccess =>
  config?.access ?? (READ_METHODS.has(method) ? 'viewer' : 'admin');

const refusal = (needed: MemberRole) =>
  new AppError(
    'role_forbidden',
    needed === 'owner'
      ? 'Only owners of this organisation can do this.'
      : 'Your role in this organisation can only look, not change anything. Ask an owner for the admin role.',
  );

/**
 * Whether the session may see what grants write access (a person's record link, which lets anyone
 * record for them): the members who may change things, admins and owners. A viewer's pages and
 * downloads leave such links out, so "changes nothing" holds for whatever they copy or pass on.
 */
export const seesWriteLinks = (request: FastifyRequest): boolean =>
  request.dashboard !== undefined && request.dashboard !== null && roleAtLeast(request.dashboard.member.role, 'admin');

/**
 * preHandler of the whole dashboard scope: no session → the sign-in page; no organisation yet →
 * the organisation picker; a role below the route's → 403 `role_forbidden`; a state-changing
 * request without the session's form token → 403 `form_token_invalid`.
 */
export async function enforceAccess(request: FastifyRequest, reply: FastifyReply) {
  if (request.is404) return;
  const access = requiredAccess(request.method, request.routeOptions.config);
  if (access === 'public') return;
  const person = request.dashboardPerson;
  if (!person) return redirect(reply, '/dashboard/sign-in');
  if (access !== 'signed-in') {
    const session = request.dashboard;
    if (!session) return redirect(reply, ORGANISATIONS_PATH);
    if (!roleAtLeast(session.member.role, access)) throw refusal(access);
  }
  if (!READ_METHODS.has(request.method)) requireFormToken(request, person.sessionId);
}
