/**
 * The LTI 1.3 tool's endpoints: the public key set (`/lti/jwks`), the OIDC login initiation
 * (`/lti/login`, GET or POST) and the launch (`/lti/launch`, the id_token form post). Refusals are
 * pages with a 4xx status that say what went wrong; none of these routes needs a session.
 *
 * The state travels in a cookie bound to this browser (path `/lti`). A platform posts the launch
 * from its own site, so over https the cookie is `SameSite=None; Secure` (a Lax cookie is not sent
 * with a cross-site POST); on plain http (development and tests on loopback, where platform and
 * tool share a site) it is Lax, since browsers refuse `SameSite=None` without `Secure`.
 */
import fastifyCookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { toAppError } from '../../http/error-handler.js';
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { SESSION_COOKIE, setCookie } from '../dashboard/http.js';
import { initiateLogin, type Launch, type LoginRequest, storageLoginOf, validateLaunch, webOrigin } from './launch-service.js';
import { landLaunch } from './landing-service.js';
import { completeStorageLaunch, issueLaunchTicket } from './platform-storage.js';
import { toolKeySet } from './tool-keys.js';
import { deepLinkResponse, openDeepLinkRequest } from './deep-linking.js';
import { deepLinkPickerPage, deepLinkReturnPage, launchRefusedPage, platformStoragePage } from './views.js';
import { dynamicRegistrationRoutes } from './registration-routes.js';

const STATE_COOKIE = 'vn_lti_state';
const STATE_MAX_AGE_S = 10 * 60;
const FORM_BODY_LIMIT = 64 * 1024;
/** Requests per minute from one client address (a class of students launching at once shares a campus address). */
const REQUESTS_PER_MINUTE = 300;
const PAGE_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'"];
const LOGIN_FIELDS = [
  'iss',
  'login_hint',
  'target_link_uri',
  'lti_message_hint',
  'client_id',
  'lti_deployment_id',
  'lti_storage_target',
] as const;
/** The platform-storage pages (platform-storage.ts) run our script and live in the platform's frame. */
const STORAGE_PAGE_CSP = [...PAGE_CSP, "script-src 'self'"];

const REFUSAL_TITLES: Record<string, string> = {
  lti_login_invalid: 'voicename cannot start here',
  lti_launch_invalid: 'Launch not accepted',
  lti_launch_state: 'Launch not from this browser',
  lti_launch_replayed: 'Launch already used',
  lti_claims_invalid: 'Launch not accepted',
  lti_platform_unavailable: 'The course platform did not answer',
  rate_limited: 'Too many requests',
};

export function ltiRoutes(deps: Deps) {
  const secure = deps.config.dashboard.secureCookies;
  const styleUrl = deps.assets.url('dashboard.css');
  const https = deps.config.baseUrl.startsWith('https:');
  const ownOrigin = new URL(deps.config.baseUrl).origin;

  const stateCookie = (reply: FastifyReply, value: string, maxAge: number) =>
    reply.setCookie(STATE_COOKIE, value, {
      path: '/lti',
      maxAge,
      httpOnly: true,
      sameSite: secure ? 'none' : 'lax',
      secure,
    });

  /**
   * The Deep Linking pages open inside the platform's editor (a frame): only the platform's own
   * origin (where the choice returns) may frame them; every other LTI page refuses framing.
   */
  const framedBy = (reply: FastifyReply, csp: readonly string[], origin: string) =>
    applyPageSecurity(reply, { csp, https, framedBy: [origin] });

  return async (app: FastifyInstance) => {
    await app.register(fastifyCookie);
    // A login writes a nonce row and a launch fetches a key set: per client address, counted in
    // the shared store when there is one, so a stranger cannot make either cheap work for us.
    await registerRateLimit(app, 'lti', {
      ...deps.rateLimits.options('lti'),
      max: REQUESTS_PER_MINUTE,
      timeWindow: 60_000,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many requests from this address; try again in ${Math.ceil(context.ttl / 1000)} s.`, {
          headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
        }),
    });
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_r, body, done) => {
        const fields: Record<string, string> = {};
        for (const [name, value] of new URLSearchParams(body as string)) if (!(name in fields)) fields[name] = value;
        done(null, fields);
      },
    );
    app.addHook('onRequest', async (_request, reply) => {
      applyPageSecurity(reply.header('cache-control', 'no-store'), { csp: PAGE_CSP, https });
    });
    app.setErrorHandler((error, request, reply) => {
      const known = toAppError(error as Error);
      if (known.status >= 500) request.log.error({ err: known.cause ?? error }, 'LTI request failed');
      else request.log.info({ code: known.code, reason: known.message }, 'LTI launch refused');
      reply.headers(known.headers);
      const title = REFUSAL_TITLES[known.code] ?? (known.status < 500 ? 'Request refused' : 'Something went wrong');
      const message =
        known.code === 'internal_error' ? 'Something went wrong on our side. Try again in a moment.' : known.message;
      const newWindowUrl = typeof known.details?.newWindowUrl === 'string' ? known.details.newWindowUrl : null;
      // A refusal shows where the launch happened, often inside the platform's frame: the site
      // that posted the launch (or, for a login, the platform it names) may frame the page that
      // says what went wrong and offers a window of its own. It holds nothing to click-jack.
      const launchSite = webOrigin(request.headers.origin) ?? webOrigin((request.query as { iss?: string } | undefined)?.iss);
      if (launchSite !== null && launchSite !== ownOrigin) framedBy(reply, PAGE_CSP, launchSite);
      return sendPage(reply, launchRefusedPage({ styleUrl, title, message, newWindowUrl }), known.status);
    });

    app.get('/lti/jwks', async (_request, reply) => {
      // A key set is public and changes only with a rotation (published a day before it signs).
      const keySet = await toolKeySet(deps);
      return reply.header('cache-control', 'public, max-age=300').type('application/json').send(keySet);
    });

    const login = async (request: FastifyRequest, reply: FastifyReply) => {
      const source = (request.method === 'POST' ? request.body : request.query) as Record<string, unknown> | undefined;
      const input: LoginRequest = {};
      for (const field of LOGIN_FIELDS) {
        const value = source?.[field];
        if (typeof value === 'string' && value !== '') input[field] = value;
      }
      const { redirectUrl, state, nonce, platformOrigin } = await initiateLogin(deps, input);
      stateCookie(reply, state, STATE_MAX_AGE_S);
      if (input.lti_storage_target === undefined) return reply.code(302).header('location', redirectUrl).send();
      // The platform offers its storage: the state goes there too, for a browser that drops the cookie.
      framedBy(reply, STORAGE_PAGE_CSP, platformOrigin);
      return sendPage(
        reply,
        platformStoragePage({
          styleUrl,
          scriptUrl: deps.assets.url('lti-storage.ts'),
          storageTarget: input.lti_storage_target,
          platformOrigin,
          state,
          step: { kind: 'login', nonce, next: redirectUrl },
        }),
      );
    };
    const loginConfig = { audit: { exempt: 'starts a launch; stores only a single-use nonce' } } as const;
    app.get('/lti/login', login);
    app.post('/lti/login', { config: loginConfig }, login);

    const launchConfig = {
      audit: {
        exempt: 'the launch itself changes no settings; a membership it creates is audited by the service (member.joined)',
      },
    } as const;
    app.post('/lti/launch', { config: launchConfig }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const idToken = typeof body.id_token === 'string' ? body.id_token : undefined;
      const state = typeof body.state === 'string' ? body.state : undefined;
      const browserState = request.cookies[STATE_COOKIE] ?? null;
      const storage = browserState === null && state ? await storageLoginOf(deps, state) : null;
      if (storage !== null && state) {
        // No cookie, but the login stored the state in the platform's storage: the page reads it back.
        const launch = withLaunchSite(request, await validateLaunch(deps, { idToken, state, browserState: 'platform-storage' }));
        const ticket = await issueLaunchTicket(deps, launch, state);
        framedBy(reply, STORAGE_PAGE_CSP, storage.platformOrigin);
        return sendPage(
          reply,
          platformStoragePage({
            styleUrl,
            scriptUrl: deps.assets.url('lti-storage.ts'),
            ...storage,
            state,
            step: { kind: 'launch', ticket },
          }),
        );
      }
      const launch = withLaunchSite(request, await validateLaunch(deps, { idToken, state, browserState }));
      stateCookie(reply, '', 0);
      return land(request, reply, launch);
    });

    const completeConfig = {
      audit: { exempt: 'completes a launch; a membership it creates is audited by the service' },
    } as const;
    app.post('/lti/launch/complete', { config: completeConfig }, async (request, reply) => {
      // Only the launch page's own form: a page elsewhere cannot post a ticket and state it knows.
      if (!sameOrigin(request.headers, deps.config.baseUrl)) {
        throw new AppError('lti_launch_state', 'This launch can only be completed from voicename’s own launch page.');
      }
      const body = (request.body ?? {}) as Record<string, unknown>;
      const launch = await completeStorageLaunch(deps, {
        ticket: typeof body.ticket === 'string' ? body.ticket : undefined,
        state: typeof body.state === 'string' ? body.state : undefined,
      });
      return land(request, reply, launch);
    });

    /** The platform's page posted the launch: its site is one whose frame shows the course's pages. */
    const withLaunchSite = (request: FastifyRequest, launch: Launch): Launch => {
      const launchSite = webOrigin(request.headers.origin);
      return launchSite === null || launchSite === ownOrigin
        ? launch
        : { ...launch, frameOrigins: [...new Set([launchSite, ...launch.frameOrigins])] };
    };

    /** Where a validated launch goes: the learner's record page, the Deep Linking picker, or the course's collection. */
    const land = async (request: FastifyRequest, reply: FastifyReply, launch: Launch) => {
      const landing = await landLaunch(deps, launch, { userAgent: request.headers['user-agent'], ip: request.ip });
      if (landing.kind === 'learner') return reply.code(303).header('location', `/r/${landing.recordToken}`).send();
      if (landing.kind === 'deep_linking') {
        framedBy(reply, PAGE_CSP, landing.returnOrigin);
        return sendPage(
          reply,
          deepLinkPickerPage({
            styleUrl,
            courseTitle: landing.courseTitle,
            sealedRequest: landing.sealedRequest,
            people: landing.people,
          }),
        );
      }
      const maxAge = Math.floor((Date.parse(landing.expiresAt) - deps.clock.now().getTime()) / 1000);
      setCookie(reply, SESSION_COOKIE, landing.sessionId, { maxAgeSeconds: maxAge, secure });
      return reply.code(303).header('location', `/dashboard/collections/${landing.collectionId}`).send();
    };

    const deepLinkConfig = { audit: { exempt: 'signs a choice for the course platform; nothing here changes' } } as const;
    app.post('/lti/deep-link', { config: deepLinkConfig }, async (request, reply) => {
      const body = (request.body ?? {}) as Record<string, unknown>;
      const deepLink = openDeepLinkRequest(deps, typeof body.request === 'string' ? body.request : undefined);
      const choice = typeof body.choice === 'string' ? body.choice : undefined;
      const { returnUrl, jwt } = await deepLinkResponse(deps, deepLink, choice);
      // This page's one form posts to the platform: its origin joins form-action, and our script sends it.
      const csp = [
        ...PAGE_CSP.filter((d) => !d.startsWith('form-action')),
        `form-action ${new URL(returnUrl).origin}`,
        "script-src 'self'",
      ];
      framedBy(reply, csp, new URL(returnUrl).origin);
      return sendPage(reply, deepLinkReturnPage({ styleUrl, scriptUrl: deps.assets.url('lti-return.ts'), returnUrl, jwt }));
    });

    // LTI Dynamic Registration: its own refusal pages, so in a plugin of its own inside this one.
    await app.register(dynamicRegistrationRoutes(deps, { styleUrl, https }));
  };
}

/** A browser's own form post: `Sec-Fetch-Site: same-origin`, or an `Origin` equal to ours. */
function sameOrigin(headers: Record<string, string | string[] | undefined>, baseUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  return headers.origin === new URL(baseUrl).origin;
}

const sendPage = (reply: FastifyReply, page: { toString(): string }, status = 200) =>
  reply.code(status).type('text/html; charset=utf-8').send(page.toString());
