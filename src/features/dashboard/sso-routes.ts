/**
 * Single sign-on in the dashboard: the organisation's identity provider and e-mail domains (admins
 * and owners), and the provider's redirect back (`/dashboard/sso/callback`), which signs the person in.
 * Sending an address to its provider from the sign-in form is in `auth-routes.ts`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditDetail, auditObject } from '../../http/audit.js';
import { html } from '../../web/html.js';
import { errorPage, type Viewer } from '../../web/views/dashboard/layout.js';
import { type SsoFormValues, ssoPage } from '../../web/views/dashboard/sso.js';
import type { SamlFormValues } from '../../web/views/dashboard/sso-saml.js';
import { addSsoDomain, listSsoDomains, removeSsoDomain, verifySsoDomain } from '../sso/domain-service.js';
import { finishSsoSignIn } from '../sso/oidc-service.js';
import { acsUrl, SAML_METADATA_PATH, spEntityId } from '../sso/saml-service.js';
import { saveSamlSettings } from '../sso/saml-settings.js';
import { callbackUrl, removeSsoSettings, saveSsoSettings, ssoSettingsOf } from '../sso/service.js';
import {
  clearCookie,
  formField,
  noticeFrom,
  readCookie,
  redirect,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  sendPage,
  sessionOf,
  setCookie,
  viewerOf,
} from './http.js';
import { signInWithSso } from './service.js';

const NOTICES: Record<string, string> = {
  saved: 'Single sign-on is saved. Members of verified domains now sign in through your identity provider.',
  removed: 'Single sign-on is off. Members sign in with e-mailed links again.',
  'domain-added': 'The domain is added. Publish its token, then check it.',
  'domain-verified': 'The domain is verified: its addresses now sign in through your identity provider.',
  'domain-removed': 'The domain is removed.',
};

export function ssoRoutes(deps: Deps, options: { styleUrl: string; secure: boolean }) {
  const { styleUrl, secure } = options;

  const render = async (
    request: FastifyRequest,
    extra: {
      error?: string;
      values?: SsoFormValues;
      domainError?: string;
      samlError?: string;
      samlValues?: SamlFormValues;
    } = {},
  ) => {
    const accountId = sessionOf(request).account.id;
    const [settings, domains] = await Promise.all([ssoSettingsOf(deps, accountId), listSsoDomains(deps, accountId)]);
    return ssoPage({
      styleUrl,
      viewer: viewerOf(request) as Viewer,
      redirectUri: callbackUrl(deps),
      settings,
      domains,
      serviceProvider: { entityId: spEntityId(deps), acsUrl: acsUrl(deps), metadataUrl: SAML_METADATA_PATH },
      notice: extra.error || extra.domainError || extra.samlError ? null : noticeFrom(NOTICES, request.query),
      ...extra,
    });
  };

  /** Runs a change; a refusal shows the page again with the reason (`field` says where). */
  const change = async (
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<unknown>,
    notice: string,
    refusal: (message: string) => Parameters<typeof render>[1],
  ) => {
    try {
      await run();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) throw error;
      return sendPage(reply, await render(request, refusal(error.message)), error.status);
    }
    return redirect(reply, `/dashboard/sso?notice=${notice}`);
  };

  return async (app: FastifyInstance) => {
    // Settings are for those who may change them: the page shows the provider and domain tokens.
    app.get('/sso', { config: { access: 'admin' } }, async (request, reply) => sendPage(reply, await render(request)));

    app.post('/sso', { config: { audit: 'sso.settings_saved' } }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      const values: SsoFormValues = {
        issuer: formField(request, 'issuer') ?? '',
        clientId: formField(request, 'client_id') ?? '',
        groupClaim: formField(request, 'group_claim') ?? '',
        roleMapping: formField(request, 'role_mapping') ?? '',
        defaultRole: formField(request, 'default_role') ?? '',
        ssoRequired: formField(request, 'sso_required') === 'on',
      };
      return change(
        request,
        reply,
        async () => {
          const { changed } = await saveSsoSettings(deps, accountId, {
            ...values,
            clientSecret: formField(request, 'client_secret') ?? '',
          });
          auditObject(request, accountId);
          auditDetail(request, { changed: changed.join(', ') });
        },
        'saved',
        (error) => ({ error, values }),
      );
    });

    app.post('/sso/saml', { config: { audit: 'sso.settings_saved' } }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      const samlValues: SamlFormValues = {
        entityId: formField(request, 'idp_entity_id') ?? '',
        ssoUrl: formField(request, 'idp_sso_url') ?? '',
        certificate: formField(request, 'idp_certificate') ?? '',
        emailAttribute: formField(request, 'email_attribute') ?? '',
        groupAttribute: formField(request, 'group_attribute') ?? '',
        roleMapping: formField(request, 'role_mapping') ?? '',
        defaultRole: formField(request, 'default_role') ?? '',
        ssoRequired: formField(request, 'sso_required') === 'on',
        allowIdpInitiated: formField(request, 'allow_idp_initiated') === 'on',
      };
      return change(
        request,
        reply,
        async () => {
          const { changed } = await saveSamlSettings(deps, accountId, samlValues);
          auditObject(request, accountId);
          auditDetail(request, { protocol: 'saml', changed: changed.join(', ') });
        },
        'saved',
        (samlError) => ({ samlError, samlValues }),
      );
    });

    app.post('/sso/remove', { config: { audit: 'sso.settings_removed' } }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      await removeSsoSettings(deps, accountId);
      auditObject(request, accountId);
      return redirect(reply, '/dashboard/sso?notice=removed');
    });

    app.post('/sso/domains', { config: { audit: 'sso.domain_added' } }, async (request, reply) => {
      const accountId = sessionOf(request).account.id;
      return change(
        request,
        reply,
        async () => auditObject(request, (await addSsoDomain(deps, accountId, formField(request, 'domain') ?? '')).domain),
        'domain-added',
        (domainError) => ({ domainError }),
      );
    });

    app.post<{ Params: { id: string } }>(
      '/sso/domains/:id/verify',
      { config: { audit: 'sso.domain_verified' } },
      async (request, reply) => {
        const accountId = sessionOf(request).account.id;
        return change(
          request,
          reply,
          async () => auditObject(request, (await verifySsoDomain(deps, accountId, request.params.id)).domain),
          'domain-verified',
          (domainError) => ({ domainError }),
        );
      },
    );

    app.post<{ Params: { id: string } }>(
      '/sso/domains/:id/remove',
      { config: { audit: 'sso.domain_removed' } },
      async (request, reply) => {
        const domain = await removeSsoDomain(deps, sessionOf(request).account.id, request.params.id);
        auditObject(request, domain);
        return redirect(reply, '/dashboard/sso?notice=domain-removed');
      },
    );

    // The identity provider sends the browser back here. Public: the browser has no session yet;
    // the state bound to its sign-in cookie is what proves it started this sign-in.
    app.get('/sso/callback', { config: { access: 'public' } }, async (request, reply) => {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
      try {
        const signedIn = await finishSsoSignIn(deps, {
          query,
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
        const next = html`<p><a href="/dashboard/sign-in" class="button primary">Back to sign-in</a></p>`;
        return sendPage(
          reply,
          errorPage({ styleUrl, title: 'Single sign-on refused', message: error.message, next }),
          error.status,
        );
      }
    });
  };
}
