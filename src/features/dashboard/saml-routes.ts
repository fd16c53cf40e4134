/**
 * SAML 2.0 sign-in's public addresses: our service provider metadata, the assertion consumer
 * service (ACS) the IdP posts responses to, and the same-site step that opens the session.
 *
 * The ACS is a cross-site POST from the IdP's page: the browser sends no SameSite=Lax cookie with
 * it, and it carries no form token. So it only checks the response and answers with a redirect
 * to `finish`, a top-level GET on which the sign-in cookie is sent again; there the ticket is
 * redeemed in the browser that started the sign-in, and the session cookie set. Nothing on our
 * side posts to the IdP (the AuthnRequest goes by HTTP-Redirect), so `form-action 'self'` stays.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { html } from '../../web/html.js';
import { errorPage } from '../../web/views/dashboard/layout.js';
import { acceptSamlResponse, finishSamlSignIn, SAML_FINISH_PATH, samlMetadata } from '../sso/saml-service.js';
import { clearCookie, formField, readCookie, redirect, SESSION_COOKIE, SIGN_IN_COOKIE, sendPage, setCookie } from './http.js';
import { signInWithSso } from './service.js';

/** Signed responses with a certificate and many groups run to tens of kilobytes, base64 on top. */
const ACS_BODY_LIMIT = 512 * 1024;

export function samlRoutes(deps: Deps, options: { styleUrl: string; secure: boolean }) {
  const { styleUrl, secure } = options;
  const signInForm = {
    access: 'public',
    audit: { exempt: 'signs a browser in; memberships it makes are audited by the service' },
  } as const;

  const refusedPage = (reply: FastifyReply, error: AppError) => {
    const next = html`<p><a href="/dashboard/sign-in" class="button primary">Back to sign-in</a></p>`;
    return sendPage(reply, errorPage({ styleUrl, title: 'Single sign-on refused', message: error.message, next }), error.status);
  };

  return async (app: FastifyInstance) => {
    app.get('/sso/saml/metadata', { config: { access: 'public' } }, async (_request, reply) =>
      reply.type('application/samlmetadata+xml; charset=utf-8').send(await samlMetadata(deps)),
    );

    app.post('/sso/saml/acs', { bodyLimit: ACS_BODY_LIMIT, config: signInForm }, async (request, reply) => {
      try {
        const { ticket } = await acceptSamlResponse(deps, { samlResponse: formField(request, 'SAMLResponse') ?? '' });
        return redirect(reply, `${SAML_FINISH_PATH}?ticket=${encodeURIComponent(ticket)}`);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return refusedPage(reply, error);
      }
    });

    app.get('/sso/saml/finish', { config: { access: 'public' } }, async (request, reply) => {
      const ticket = (request.query as { ticket?: unknown }).ticket;
      try {
        const signedIn = await finishSamlSignIn(deps, {
          ticket: typeof ticket === 'string' ? ticket : '',
          browserSecret: readCookie(request, SIGN_IN_COOKIE),
          ip: request.ip,
        });
        const session = await signInWithSso(deps, { ...signedIn, userAgent: request.headers['user-agent'] });
        const maxAgeSeconds = Math.floor((Date.parse(session.expiresAt) - deps.clock.now().getTime()) / 1000);
        setCookie(reply, SESSION_COOKIE, session.sessionId, { maxAgeSeconds, secure });
        clearCookie(reply, SIGN_IN_COOKIE, secure);
        return redirect(reply, '/dashboard');
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        return refusedPage(reply, error);
      }
    });
  };
}
