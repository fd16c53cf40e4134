/**
 * LTI Dynamic Registration's two pages, inside the LTI plugin (its cookie, rate limit, form
 * parser and page headers apply): `GET /lti/register/<secret>` reads and checks the platform's
 * configuration and asks for a confirmation, `POST` registers and stores, then tells the platform
 * to close the window. No session: the secret in the path is the authorisation (see
 * dynamic-registration.ts).
 *
 * The platform shows these pages in a frame or opens them in a window: they may be framed by the
 * origin of the platform's configuration URL (no other page of the tool may be), and they open
 * no new browsing context group (`Cross-Origin-Opener-Policy: unsafe-none`), so the last page's
 * `window.opener` is still the platform's window that waits for its close message.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { toAppError } from '../../http/error-handler.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { completeDynamicRegistration, type RegistrationRequest, startDynamicRegistration } from './dynamic-registration.js';
import { registrationConfirmPage, registrationDonePage, registrationRefusedPage } from './views.js';

type TokenRoute = { Params: { token: string } };

const PAGE_CSP = ["default-src 'none'", "style-src 'self'", "img-src 'self' data:", "form-action 'self'", "base-uri 'none'"];

const REFUSAL_TITLES: Record<string, string> = {
  lti_registration_link_invalid: 'Registration URL not accepted',
  lti_platform_configuration_invalid: 'Platform configuration not accepted',
  lti_registration_refused: 'The platform refused the registration',
  conflict: 'Platform already registered',
  rate_limited: 'Too many requests',
};

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The origin of the configuration URL the platform sent, when it is a web address: who may frame the page. */
function platformOrigin(value: string | undefined): string | null {
  if (value === undefined || !URL.canParse(value)) return null;
  const url = new URL(value);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
}

export function dynamicRegistrationRoutes(deps: Deps, options: { styleUrl: string; https: boolean }) {
  const { styleUrl, https } = options;

  const pageHeaders = (reply: FastifyReply, csp: readonly string[], origin: string | null) => {
    if (origin === null) return;
    applyPageSecurity(reply, { csp, https, frameable: true });
    reply.removeHeader('x-frame-options');
    reply.header('content-security-policy', [...csp, `frame-ancestors ${origin}`].join('; '));
    reply.header('cross-origin-opener-policy', 'unsafe-none');
  };

  const requestOf = (request: FastifyRequest<TokenRoute>, source: Record<string, unknown> | undefined): RegistrationRequest => ({
    token: request.params.token,
    openidConfiguration: text(source?.openid_configuration),
    registrationToken: text(source?.registration_token),
  });

  return async (app: FastifyInstance) => {
    app.setErrorHandler((error, request, reply) => {
      const known = toAppError(error as Error);
      if (known.status >= 500 && known.code !== 'lti_registration_refused') {
        request.log.error({ err: known.cause ?? error }, 'LTI registration failed');
      } else request.log.info({ code: known.code, reason: known.message }, 'LTI registration refused');
      const source = (request.method === 'POST' ? request.body : request.query) as Record<string, unknown> | undefined;
      // The refusal shows where the platform showed the registration: its frame, when it has one.
      pageHeaders(reply, PAGE_CSP, platformOrigin(text(source?.openid_configuration)));
      reply.headers(known.headers);
      const title = REFUSAL_TITLES[known.code] ?? (known.status < 500 ? 'Request refused' : 'Something went wrong');
      const message =
        known.code === 'internal_error' ? 'Something went wrong on our side. Try again in a moment.' : known.message;
      return reply
        .code(known.status)
        .type('text/html; charset=utf-8')
        .send(registrationRefusedPage({ styleUrl, title, message }).toString());
    });

    app.get<TokenRoute>('/lti/register/:token', async (request, reply) => {
      const input = requestOf(request, request.query as Record<string, unknown>);
      const { platform, organisation } = await startDynamicRegistration(deps, input);
      pageHeaders(reply, PAGE_CSP, platform.origin);
      const page = registrationConfirmPage({
        styleUrl,
        action: `/lti/register/${encodeURIComponent(input.token)}`,
        organisation,
        issuer: platform.issuer,
        productFamily: platform.productFamily,
        openidConfiguration: input.openidConfiguration as string,
        registrationToken: input.registrationToken,
      });
      return reply.type('text/html; charset=utf-8').send(page.toString());
    });

    const config = {
      audit: { exempt: 'audited by the service as lti_registration.created, by the member who made the registration URL' },
    } as const;
    app.post<TokenRoute>('/lti/register/:token', { config }, async (request, reply) => {
      const input = requestOf(request, request.body as Record<string, unknown> | undefined);
      const { registration, platformOrigin: origin } = await completeDynamicRegistration(deps, input, request.ip);
      pageHeaders(reply, [...PAGE_CSP, "script-src 'self'"], origin);
      const page = registrationDonePage({
        styleUrl,
        scriptUrl: deps.assets.url('lti-registered.ts'),
        issuer: registration.issuer,
        deploymentId: registration.deploymentIds[0] ?? null,
      });
      return reply.type('text/html; charset=utf-8').send(page.toString());
    });
  };
}
