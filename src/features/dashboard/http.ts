/**
 * HTTP plumbing of the dashboard: cookies, security headers, form bodies, the session guard
 * and the form-token (CSRF) check. Routes stay about pages.
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { applyPageSecurity, contentSecurityPolicy } from '../../http/security-headers.js';
import { SAFE_TEXT_RULE, unsafeTextReason } from '../../lib/text.js';
import type { SafeHtml } from '../../web/html.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import { organisationName } from '../accounts/service.js';
import { newBrowserSecret } from './service.js';
import {
  checkFormToken,
  type DashboardDeps,
  type DashboardSession,
  findDashboardSession,
  type SignedInPerson,
} from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in member and the organisation they act in; null without a session or before picking one. */
    dashboard: DashboardSession | null;
    /** The signed-in person, whether or not they act in an organisation yet. */
    dashboardPerson: SignedInPerson | null;
  }
}

/** Where a signed-in person without a current organisation picks one. */
export const ORGANISATIONS_PATH = '/dashboard/organisations';

export const SESSION_COOKIE = 'vn_session';
/** Binds a sign-in link to the browser that asked for it, and carries the sign-in forms' token. */
export const SIGN_IN_COOKIE = 'vn_signin';
const COOKIE_PATH = '/dashboard';
/** Form fields that may hold line breaks (textareas), as the API's multi-line fields do. */
const MULTILINE_FIELDS = new Set([
  'description',
  'note',
  'message',
  'reminder_message',
  'role_mapping',
  'deployment_ids',
  'idp_certificate',
  'tls_client_certificate',
  'tls_client_key',
]);
/**
 * Fields whose route applies the text rule itself and answers on its own form (the refusal then
 * sits under the field, with what was typed, instead of on an error page), or checks them more
 * strictly: a SAML response is base64 that some identity providers wrap in lines, read only
 * through its signature.
 */
const FIELDS_CHECKED_BY_ROUTE = new Set(['organisation_name_new', 'SAMLResponse']);
const ALL_VALUES = Symbol('every value of each field');
type FormBody = Record<string, string> & { [ALL_VALUES]?: Record<string, string[]> };
const SIGN_IN_COOKIE_MAX_AGE_S = 60 * 60;
const FORM_BODY_LIMIT = 16 * 1024;

/** No scripts at all: styles, inline images and forms posting back to us. */
const DASHBOARD_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'"];
/** The same, for the few pages that load one of our own scripts (e.g. a copy button); never inline code. */
const SCRIPT_PAGE_CSP = contentSecurityPolicy([...DASHBOARD_CSP, "script-src 'self'"]);

/**
 * Pages that play recordings or run one of our own scripts (copy buttons, the ceremony reader)
 * allow exactly that: scripts and audio from this origin, audio preloaded into `blob:` URLs, and
 * `fetch` back to us. Every other page keeps the script-free policy above.
 */
const MEDIA_PAGE_CSP = contentSecurityPolicy([
  ...DASHBOARD_CSP,
  "script-src 'self'",
  "media-src 'self' blob:",
  "connect-src 'self'",
]);

/** The ceremony reader adds its web app manifest and its service worker (both our own, per collection). */
const READER_PAGE_CSP = contentSecurityPolicy([
  ...DASHBOARD_CSP,
  "script-src 'self'",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
]);

/**
 * Security headers on every dashboard response, cookies (@fastify/cookie: `request.cookies`
 * parsed at onRequest, before the session is loaded) and the form body parser, for one plugin scope.
 */
export async function registerPagePlumbing(app: FastifyInstance, options: { secure: boolean }): Promise<void> {
  await app.register(fastifyCookie);
  const security = { csp: DASHBOARD_CSP, https: options.secure };
  app.addHook('onRequest', async (_request, reply) => {
    applyPageSecurity(reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex, nofollow'), security);
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => {
      // First value wins for a repeated field (`formField`); every value of a repeated field,
      // such as a group of checkboxes, is kept for `formValues`. Every field obeys the API's
      // text rule (line breaks only in the multi-line fields) and is kept in NFC.
      const fields: FormBody = {};
      const all: Record<string, string[]> = {};
      for (const [name, raw] of new URLSearchParams(body as string)) {
        const multiline = MULTILINE_FIELDS.has(name);
        const checkedByRoute = FIELDS_CHECKED_BY_ROUTE.has(name);
        if (unsafeTextReason(name) !== null || (!checkedByRoute && unsafeTextReason(raw, { multiline }) !== null)) {
          const field = unsafeTextReason(name) === null ? name : 'form';
          done(new AppError('parameter_invalid', `The field "${field}" ${SAFE_TEXT_RULE}.`, { param: field }), undefined);
          return;
        }
        // Browsers send a textarea's line breaks as CRLF; store them as the API would receive them.
        const value = (multiline ? raw.replace(/\r\n?/g, '\n') : raw).normalize('NFC');
        if (!(name in fields)) fields[name] = value;
        (all[name] ??= []).push(value);
      }
      fields[ALL_VALUES] = all;
      done(null, fields);
    },
  );
}

export const readCookie = (request: FastifyRequest, name: string): string | null => request.cookies[name] ?? null;

/** Every dashboard cookie: this path only, never readable by scripts, not sent on cross-site subrequests. */
export const setCookie = (
  reply: FastifyReply,
  name: string,
  value: string,
  options: { maxAgeSeconds: number; secure: boolean },
) =>
  reply.setCookie(name, value, {
    path: COOKIE_PATH,
    maxAge: options.maxAgeSeconds,
    httpOnly: true,
    sameSite: 'lax',
    secure: options.secure,
  });

export const clearCookie = (reply: FastifyReply, name: string, secure: boolean) =>
  setCookie(reply, name, '', { maxAgeSeconds: 0, secure });

export const setSignInCookie = (reply: FastifyReply, value: string, secure: boolean) =>
  setCookie(reply, SIGN_IN_COOKIE, value, { maxAgeSeconds: SIGN_IN_COOKIE_MAX_AGE_S, secure });

/**
 * The browser's sign-in binding secret (the `vn_signin` cookie), set now if it has none. Forms
 * shown before a session exists (sign-in, link confirmations) derive their token from it.
 */
export function signInBinding(request: FastifyRequest, reply: FastifyReply, secure: boolean): string {
  const existing = readCookie(request, SIGN_IN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const secret = newBrowserSecret();
  setSignInCookie(reply, secret, secure);
  return secret;
}

export const sendPage = (reply: FastifyReply, page: SafeHtml, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(page.toString());

/** A page with audio or our own scripts (see MEDIA_PAGE_CSP). */
export const sendMediaPage = (reply: FastifyReply, page: SafeHtml, status = 200) =>
  sendPage(reply.header('content-security-policy', MEDIA_PAGE_CSP), page, status);

/** The ceremony reader (see READER_PAGE_CSP). */
export const sendReaderPage = (reply: FastifyReply, page: SafeHtml) =>
  sendPage(reply.header('content-security-policy', READER_PAGE_CSP), page);

/** The stage scanner: a page with our script that may use this origin's camera (off on every other page). */
export const sendCameraPage = (reply: FastifyReply, page: SafeHtml, status = 200) =>
  sendMediaPage(reply.header('permissions-policy', 'camera=(self), microphone=(), geolocation=()'), page, status);

export const redirect = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();

export const formField = (request: FastifyRequest, name: string): string | undefined => {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
};

/** Every value of a repeated form field (a group of checkboxes), in the order sent. */
export const formValues = (request: FastifyRequest, name: string): string[] => {
  const body = request.body as FormBody | undefined;
  return (body && typeof body === 'object' ? body[ALL_VALUES]?.[name] : undefined) ?? [];
};

/** Lets this page load our own script files (`/assets/…`); every other dashboard page has no script source at all. */
export const allowOwnScripts = (reply: FastifyReply) => reply.header('content-security-policy', SCRIPT_PAGE_CSP);

/** The fixed success message a redirect asked for with `?notice=<code>` (never echoed input). */
export const noticeFrom = (notices: Record<string, string>, query: unknown): string | null => {
  const code = (query as { notice?: unknown } | undefined)?.notice;
  return typeof code === 'string' && Object.hasOwn(notices, code) ? (notices[code] ?? null) : null;
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

/** onRequest: loads the session from its cookie into `request.dashboardPerson` and `request.dashboard` (or null). */
export const loadSession = (deps: DashboardDeps) => async (request: FastifyRequest) => {
  const found = await findDashboardSession(deps, readCookie(request, SESSION_COOKIE) ?? undefined);
  request.dashboardPerson = found?.person ?? null;
  request.dashboard = found?.organisation ?? null;
};

/**
 * preHandler of pages that need a member acting in an organisation: without a session they go to
 * the sign-in page, without an organisation to the organisation picker; POSTs also need the
 * session's form token. (The dashboard's access hook, `access.ts`, already does all of this for
 * every route; this guard only keeps handlers honest.)
 */
export const requireSession = async (request: FastifyRequest, reply: FastifyReply) => {
  const session = request.dashboard;
  if (!session) return redirect(reply, request.dashboardPerson ? ORGANISATIONS_PATH : '/dashboard/sign-in');
  if (request.method !== 'GET' && request.method !== 'HEAD') requireFormToken(request, session.sessionId);
};

/** Who the page frame shows as signed in: the person, and the organisation and role they act with. */
export function viewerOf(request: FastifyRequest): Viewer | null {
  const session = request.dashboard;
  if (session) {
    return {
      email: session.member.email,
      csrfToken: session.csrfToken,
      organisation: organisationName(session.account),
      role: session.member.role,
    };
  }
  const person = request.dashboardPerson;
  return person ? { email: person.email, csrfToken: person.csrfToken } : null;
}

/** The signed-in member of a handler whose access is a role (the default for every route). */
export function sessionOf(request: FastifyRequest): DashboardSession {
  if (!request.dashboard) throw new Error('route is missing requireSession');
  return request.dashboard;
}

/** The signed-in person of a handler whose access is `signed-in` or a role. */
export function personOf(request: FastifyRequest): SignedInPerson {
  if (!request.dashboardPerson) throw new Error('route is not behind the dashboard access hook');
  return request.dashboardPerson;
}
