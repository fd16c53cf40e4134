/**
 * HTTP plumbing of the dashboard: cookies, security headers, form bodies, the session guard
 * and the form-token (CSRF) check. Routes stay about pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { pageSecurityHeaders } from '../../http/security-headers.js';
import { SAFE_TEXT_RULE, unsafeTextReason } from '../../lib/text.js';
import type { SafeHtml } from '../../web/html.js';
import { checkFormToken, type DashboardDeps, type DashboardSession, findDashboardSession } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardSession | null;
  }
}

export const SESSION_COOKIE = 'vn_session';
/** Binds a sign-in link to the browser that asked for it, and carries the sign-in forms' token. */
export const SIGN_IN_COOKIE = 'vn_signin';
const COOKIE_PATH = '/dashboard';
const SIGN_IN_COOKIE_MAX_AGE_S = 60 * 60;
const FORM_BODY_LIMIT = 16 * 1024;

/** No scripts at all: styles, inline images and forms posting back to us. */
const DASHBOARD_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'"];

/**
 * Pages that play recordings or run one of our own scripts (copy buttons, the ceremony reader)
 * allow exactly that: scripts and audio from this origin, audio preloaded into `blob:` URLs, and
 * `fetch` back to us. Every other page keeps the script-free policy above.
 */
const MEDIA_PAGE_CSP = pageSecurityHeaders({
  csp: [...DASHBOARD_CSP, "script-src 'self'", "media-src 'self' blob:", "connect-src 'self'"],
  https: false,
})['content-security-policy'] as string;

/** Fields that may hold several lines (tab, CR and LF allowed), as the API's multi-line fields do. */
const MULTILINE_FIELDS = new Set(['description']);

/** Security headers on every dashboard response, and the form body parser, for one plugin scope. */
export function registerPagePlumbing(app: FastifyInstance, options: { secure: boolean }): void {
  const headers = {
    'cache-control': 'no-store',
    'x-robots-tag': 'noindex, nofollow',
    ...pageSecurityHeaders({ csp: DASHBOARD_CSP, https: options.secure }),
  };
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      // First value wins for a repeated field; values are strings, never arrays. Every field
      // obeys the API's text rule (multi-line only where the API allows it) and is kept in NFC.
      const fields: Record<string, string> = {};
      for (const [name, value] of new URLSearchParams(body as string)) {
        if (unsafeTextReason(name) !== null || unsafeTextReason(value, { multiline: MULTILINE_FIELDS.has(name) }) !== null) {
          const field = unsafeTextReason(name) === null ? name : 'form';
          done(new AppError('parameter_invalid', `The field "${field}" ${SAFE_TEXT_RULE}.`, { param: field }), undefined);
          return;
        }
        if (!(name in fields)) fields[name] = value.normalize('NFC');
      }
      done(null, fields);
    },
  );
}

export function readCookie(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function setCookie(reply: FastifyReply, name: string, value: string, options: { maxAgeSeconds: number; secure: boolean }) {
  const attributes = [`${name}=${value}`, `Path=${COOKIE_PATH}`, `Max-Age=${options.maxAgeSeconds}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) attributes.push('Secure');
  const previous = reply.getHeader('set-cookie');
  const list = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
  reply.header('set-cookie', [...list, attributes.join('; ')]);
}

export const clearCookie = (reply: FastifyReply, name: string, secure: boolean) =>
  setCookie(reply, name, '', { maxAgeSeconds: 0, secure });

export const setSignInCookie = (reply: FastifyReply, value: string, secure: boolean) =>
  setCookie(reply, SIGN_IN_COOKIE, value, { maxAgeSeconds: SIGN_IN_COOKIE_MAX_AGE_S, secure });

export const sendPage = (reply: FastifyReply, page: SafeHtml, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(page.toString());

/** A page with audio or our own scripts (see MEDIA_PAGE_CSP). */
export const sendMediaPage = (reply: FastifyReply, page: SafeHtml, status = 200) =>
  sendPage(reply.header('content-security-policy', MEDIA_PAGE_CSP), page, status);

export const redirect = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();

export const formField = (request: FastifyRequest, name: string): string | undefined => {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
};

const formRefused = () =>
  new AppError(
    'form_token_invalid',
    'This form has expired or did not come from the dashboard. Go back, reload the page and try again.',
  );

/**
 * Refuses a state-changing request whose form token does not match `secret` (compared in
 * constant time), or that a browser reports as cross-site. SameSite=Lax alone is not relied on.
 */
export function requireFormToken(request: FastifyRequest, secret: string | null): void {
  if (request.headers['sec-fetch-site'] === 'cross-site') throw formRefused();
  if (!checkFormToken(secret, formField(request, 'csrf'))) throw formRefused();
}

/** onRequest/preHandler: loads the session from its cookie into `request.dashboard` (or null). */
export const loadSession = (deps: DashboardDeps) => async (request: FastifyRequest) => {
  request.dashboard = await findDashboardSession(deps, readCookie(request, SESSION_COOKIE) ?? undefined);
};

/**
 * preHandler of pages that need a signed-in account: GETs without a session go to the sign-in
 * page; POSTs also need the session's form token.
 */
export const requireSession = async (request: FastifyRequest, reply: FastifyReply) => {
  const session = request.dashboard;
  if (!session) return redirect(reply, '/dashboard/sign-in');
  if (request.method !== 'GET' && request.method !== 'HEAD') requireFormToken(request, session.sessionId);
};

/** The signed-in session of a handler behind `requireSession`. */
export function sessionOf(request: FastifyRequest): DashboardSession {
  if (!request.dashboard) throw new Error('route is missing requireSession');
  return request.dashboard;
}
