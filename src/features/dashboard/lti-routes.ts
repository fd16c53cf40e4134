/**
 * The dashboard's LMS page: the tool's URLs and the organisation's LTI registrations, for
 * owners and admins (registering a platform lets its instructors in as admins). Changes are audited.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditObject } from '../../http/audit.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import {
  ltiDeletePage,
  ltiEditPage,
  type LtiFormInput,
  ltiPage,
  ltiRegistrationUrlPage,
  ltiRevokeRegistrationUrlPage,
} from '../../web/views/dashboard/lti.js';
import { createRegistrationLink, listRegistrationLinks, revokeRegistrationLink } from '../lti/dynamic-registration.js';
import {
  createRegistration,
  getRegistration,
  listRegistrationsOf,
  REGISTRATION_FIELDS,
  removeRegistration,
  toolUrls,
  updateRegistrationOf,
} from '../lti/registration-service.js';
import { formField, noticeFrom, redirect, requireSession, sendPage, sessionOf, viewerOf } from './http.js';

const NOTICES: Record<string, string> = {
  registered: 'The platform is registered. Launches from its deployments are accepted now.',
  updated: 'The platform is saved.',
  removed: 'The platform is removed. Launches from it are refused; its courses’ collections stay.',
  'url-revoked': 'The registration URL is revoked. No platform can register with it.',
};

type IdRoute = { Params: { id: string } };

const inputOf = (request: FastifyRequest): LtiFormInput =>
  Object.fromEntries(REGISTRATION_FIELDS.map((name) => [name, formField(request, name) ?? ''])) as LtiFormInput;

const EMPTY: LtiFormInput = { issuer: '', client_id: '', deployment_ids: '', auth_url: '', token_url: '', jwks_url: '' };

export function ltiRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  const page = async (request: FastifyRequest, extra: { input?: LtiFormInput; error?: { field: string; message: string } }) => {
    const session = sessionOf(request);
    return ltiPage({
      styleUrl,
      viewer: viewerOf(request) as Viewer,
      notice: noticeFrom(NOTICES, request.query),
      toolUrls: toolUrls(deps.config.baseUrl),
      registrations: await listRegistrationsOf(deps, session.account.id),
      registrationLinks: await listRegistrationLinks(deps, session.account.id),
      input: extra.input ?? EMPTY,
      error: extra.error ?? null,
    });
  };

  return async (app: FastifyInstance) => {
    app.get('/lti', { preHandler: requireSession, config: { access: 'admin' } }, async (request, reply) =>
      sendPage(reply, await page(request, {})),
    );

    app.post('/lti', { preHandler: requireSession, config: { audit: 'lti_registration.created' } }, async (request, reply) => {
      const input = inputOf(request);
      try {
        const created = await createRegistration(deps, sessionOf(request).account.id, input);
        auditObject(request, created.id);
        return redirect(reply, '/dashboard/lti?notice=registered');
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const field = error.param ?? 'form';
        return sendPage(reply, await page(request, { input, error: { field, message: error.message } }), error.status);
      }
    });

    app.post(
      '/lti/registration-urls',
      { preHandler: requireSession, config: { audit: 'lti_registration_url.created' } },
      async (request, reply) => {
        const session = sessionOf(request);
        const link = await createRegistrationLink(deps, session.account.id, session.member.email);
        auditObject(request, link.prefix);
        const viewer = viewerOf(request) as Viewer;
        return sendPage(reply, ltiRegistrationUrlPage({ styleUrl, viewer, url: link.url, expiresAt: link.expiresAt }), 201);
      },
    );

    app.get<IdRoute>(
      '/lti/registration-urls/:id/revoke',
      { preHandler: requireSession, config: { access: 'admin' } },
      async (request, reply) => {
        const links = await listRegistrationLinks(deps, sessionOf(request).account.id);
        const link = links.find((item) => item.id === request.params.id);
        if (!link) throw new AppError('resource_missing', 'No such unused registration URL in your organisation.');
        return sendPage(reply, ltiRevokeRegistrationUrlPage({ styleUrl, viewer: viewerOf(request) as Viewer, link }));
      },
    );

    app.post<IdRoute>(
      '/lti/registration-urls/:id/revoke',
      { preHandler: requireSession, config: { audit: 'lti_registration_url.revoked' } },
      async (request, reply) => {
        await revokeRegistrationLink(deps, sessionOf(request).account.id, request.params.id);
        return redirect(reply, '/dashboard/lti?notice=url-revoked');
      },
    );

    const registrationInput = (registration: Awaited<ReturnType<typeof getRegistration>>): LtiFormInput => ({
      issuer: registration.issuer,
      client_id: registration.clientId,
      deployment_ids: registration.deploymentIds.join('\n'),
      auth_url: registration.authUrl,
      token_url: registration.tokenUrl,
      jwks_url: registration.jwksUrl,
    });

    app.get<IdRoute>('/lti/:id/edit', { preHandler: requireSession, config: { access: 'admin' } }, async (request, reply) => {
      const registration = await getRegistration(deps, sessionOf(request).account.id, request.params.id);
      const viewer = viewerOf(request) as Viewer;
      return sendPage(
        reply,
        ltiEditPage({ styleUrl, viewer, id: registration.id, input: registrationInput(registration), error: null }),
      );
    });

    app.post<IdRoute>(
      '/lti/:id',
      { preHandler: requireSession, config: { audit: 'lti_registration.updated' } },
      async (request, reply) => {
        const input = inputOf(request);
        try {
          await updateRegistrationOf(deps, sessionOf(request).account.id, request.params.id, input);
          return redirect(reply, '/dashboard/lti?notice=updated');
        } catch (error) {
          if (!(error instanceof AppError) || error.status >= 500 || error.code === 'resource_missing') throw error;
          const viewer = viewerOf(request) as Viewer;
          const formError = { field: error.param ?? 'form', message: error.message };
          return sendPage(reply, ltiEditPage({ styleUrl, viewer, id: request.params.id, input, error: formError }), error.status);
        }
      },
    );

    app.get<IdRoute>('/lti/:id/delete', { preHandler: requireSession, config: { access: 'admin' } }, async (request, reply) => {
      const registration = await getRegistration(deps, sessionOf(request).account.id, request.params.id);
      const viewer = viewerOf(request) as Viewer;
      return sendPage(
        reply,
        ltiDeletePage({ styleUrl, viewer, id: registration.id, issuer: registration.issuer, clientId: registration.clientId }),
      );
    });

    app.post<IdRoute>(
      '/lti/:id/delete',
      { preHandler: requireSession, config: { audit: 'lti_registration.deleted' } },
      async (request, reply) => {
        await removeRegistration(deps, sessionOf(request).account.id, request.params.id);
        return redirect(reply, '/dashboard/lti?notice=removed');
      },
    );
  };
}
