/**
 * Sign-in, sign-out and the development mailbox. Before a session exists, the sign-in forms
 * are protected by a token derived from the `vn_signin` cookie (double submit, HMAC'd); the
 * same cookie binds an e-mailed link to the browser that asked for it.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import {
  checkEmailPage,
  confirmSignInPage,
  devMailboxPage,
  signInPage,
  ssoHandOffPage,
} from '../../web/views/dashboard/sign-in.js';
import { html } from '../../web/html.js';
import { isLoopbackAddress } from '../../lib/loopback.js';
import { errorPage } from '../../web/views/dashboard/layout.js';
import {
  clearCookie,
  formField,
  readCookie,
  redirect,
  personOf,
  requireFormToken,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  sendPage,
  setCookie,
  signInBinding,
} from './http.js';
import { normalizeEmail } from '../accounts/service.js';
import { startSsoSignIn } from '../sso/oidc-service.js';
import { startSamlSignIn } from '../sso/saml-service.js';
import { connectionForEmail } from '../sso/service.js';
import { completeSignIn, formToken, requestSignIn, signInPath, signOut } from './service.js';

const SIGNED_OUT_NOTICE = 'You are signed out.';

export function authRoutes(deps: Deps, options: { styleUrl: string; secure: boolean }) {
  const { styleUrl, secure } = options;

  /** The browser's sign-in binding secret, set now if it has none. */
  const bindingSecret = (request: FastifyRequest, reply: FastifyReply): string => signInBinding(request, reply, secure);
  // Everything here is reachable before a session exists (and checks its own form tokens), or
  // ends the person's session whatever organisation and role they have: nothing changes an
  // organisation's data, so nothing is audited.
  const signInForm = { access: 'public', audit: { exempt: 'signs a browser in; no organisation data changes' } } as const;

  /** The identity provider an address signs in with (by its verified domain), or null; a malformed address has none. */
  const ssoConnectionFor = async (email: string) => {
    let normalized: string;
    try {
      normalized = normalizeEmail(email);
    } catch {
      return null;
    }
    return connectionForEmail(deps, normalized);
  };

  const mailboxUrl = (email: string, clientIp: string) =>
    deps.mailer.keepsMessages && isLoopbackAddress(clientIp) ? `/dashboard/dev/mailbox?email=${encodeURIComponent(email)}` : null;

  return async (app: FastifyInstance) => {
    app.get('/sign-in', { config: { access: 'public' } }, async (request, reply) => {
      if (request.dashboardPerson) return redirect(reply, '/dashboard');
      const query = request.query as { notice?: string; link?: string };
      const signedOut = query.notice === 'signed-out';
      const csrfToken = formToken(bindingSecret(request, reply));
      const linkOnly = query.link === '1';
      return sendPage(reply, signInPage({ styleUrl, csrfToken, linkOnly, notice: signedOut ? SIGNED_OUT_NOTICE : null }));
    });

    app.post('/sign-in', { config: signInForm }, async (request, reply) => {
      const email = (formField(request, 'email') ?? '').trim();
      try {
        requireFormToken(request, readCookie(request, SIGN_IN_COOKIE));
      } catch (error) {
        const csrfToken = formToken(bindingSecret(request, reply));
        const message = 'This form expired, or your browser blocks cookies (signing in needs one). Try again.';
        return sendPage(reply, signInPage({ styleUrl, csrfToken, email, error: message }), (error as AppError).status ?? 403);
      }
      const browserSecret = readCookie(request, SIGN_IN_COOKIE);
      // An address in a domain an organisation verified for single sign-on goes to its identity
      // provider, unless the form asked for a link (`/dashboard/sign-in?link=1`: an owner's way in
      // when the provider fails; requestSignIn still refuses members of organisations requiring SSO).
      const connection = formField(request, 'method') === 'link' ? null : await ssoConnectionFor(email);
      if (connection && browserSecret !== null) {
        try {
          const url =
            connection.protocol === 'saml'
              ? await startSamlSignIn(deps, { connection, browserSecret, clientIp: request.ip })
              : await startSsoSignIn(deps, { connection, browserSecret, clientIp: request.ip, loginHint: email });
          return sendPage(reply, ssoHandOffPage({ styleUrl, url }));
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500) throw error;
          const csrfToken = formToken(bindingSecret(request, reply));
          if (error.code === 'sign_in_rate_limited') {
            reply.headers(error.headers);
            return sendPage(reply, signInPage({ styleUrl, csrfToken, email, error: error.message }), error.status);
          }
          const message = `Your organisation signs in through its identity provider, which cannot be reached right now (${error.message}). Owners can ask for an e-mailed link at /dashboard/sign-in?link=1.`;
          return sendPage(reply, signInPage({ styleUrl, csrfToken, email, error: message }), 502);
        }
      }
      try {
        const sent = await requestSignIn(deps, { email, clientIp: request.ip, browserSecret });
        return sendPage(reply, checkEmailPage({ styleUrl, email: sent.email, mailboxUrl: mailboxUrl(sent.email, request.ip) }));
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        // The form again, with what went wrong: a bad address, too many links, or the relay is down.
        const csrfToken = formToken(bindingSecret(request, reply));
        const message = error.code === 'validation_failed' ? 'Enter a valid e-mail address.' : error.message;
        reply.headers(error.headers);
        return sendPage(reply, signInPage({ styleUrl, csrfToken, email, error: message }), error.status);
      }
    });

    const finishSignIn = async (
      request: FastifyRequest<{ Params: { token: string } }>,
      reply: FastifyReply,
      confirmed: boolean,
    ) => {
      const result = await completeSignIn(deps, {
        token: request.params.token,
        browserSecret: readCookie(request, SIGN_IN_COOKIE),
        confirmed,
        userAgent: request.headers['user-agent'],
      });
      if (result.kind === 'confirm') {
        const csrfToken = formToken(bindingSecret(request, reply));
        return sendPage(
          reply,
          confirmSignInPage({ styleUrl, email: result.email, action: signInPath(request.params.token), csrfToken }),
        );
      }
      const maxAgeSeconds = Math.floor((Date.parse(result.expiresAt) - deps.clock.now().getTime()) / 1000);
      setCookie(reply, SESSION_COOKIE, result.sessionId, { maxAgeSeconds, secure });
      clearCookie(reply, SIGN_IN_COOKIE, secure);
      return redirect(reply, '/dashboard');
    };

    const linkProblem = (reply: FastifyReply, error: unknown) => {
      if (!(error instanceof AppError) || error.code !== 'sign_in_link_invalid') throw error;
      const next = html`<p><a href="/dashboard/sign-in" class="button primary">Ask for a new link</a></p>`;
      return sendPage(reply, errorPage({ styleUrl, title: 'Sign-in link not valid', message: error.message, next }), 400);
    };

    app.get<{ Params: { token: string } }>('/sign-in/:token', { config: { access: 'public' } }, async (request, reply) => {
      try {
        return await finishSignIn(request, reply, false);
      } catch (error) {
        return linkProblem(reply, error);
      }
    });

    app.post<{ Params: { token: string } }>('/sign-in/:token', { config: signInForm }, async (request, reply) => {
      requireFormToken(request, readCookie(request, SIGN_IN_COOKIE));
      try {
        return await finishSignIn(request, reply, true);
      } catch (error) {
        return linkProblem(reply, error);
      }
    });

    const signOutConfig = { access: 'signed-in', audit: { exempt: 'ends the signed-in person’s own session' } } as const;
    app.post('/sign-out', { config: signOutConfig }, async (request, reply) => {
      await signOut(deps, personOf(request).sessionId);
      clearCookie(reply, SESSION_COOKIE, secure);
      // What this browser kept for use without a network (the ceremony reader's pages and audio,
      // its service workers) goes with the session, so the next person signing in here never sees it.
      reply.header('clear-site-data', '"cache", "storage"');
      return redirect(reply, '/dashboard/sign-in?notice=signed-out');
    });

    // Anyone who can read the mailbox can sign in as anyone: only this machine may, and only when
    // mail is not really sent. `request.ip` is the client's address (the proxy's header is used
    // only when TRUST_PROXY says the proxy is ours).
    app.get('/dev/mailbox', { config: { access: 'public' } }, async (request, reply) => {
      if (!deps.mailer.keepsMessages || !isLoopbackAddress(request.ip)) return reply.callNotFound();
      const email = String((request.query as { email?: unknown }).email ?? '')
        .trim()
        .toLowerCase();
      return sendPage(reply, devMailboxPage({ styleUrl, email, message: deps.mailer.lastMessageTo(email) }));
    });
  };
}
