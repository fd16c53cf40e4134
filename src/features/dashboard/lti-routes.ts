/**
 * The dashboard's LMS page: the tool's URLs and the organisation's LTI registrations, for
 * owners and admins (registering a platform lets its instructors in as admins). Changes are audited.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditObject } from '../../http/audit.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import { type LtiFormInput, ltiPage } from '../../web/views/dashboard/lti.js';
import {
  createRegistration,
  listRegistrationsOf,
  REGISTRATION_FIELDS,
  removeRegistration,
  toolUrls,
} from '../lti/registration-service.js';
import { formField, noticeFrom, redirect, requireSession, sendPage, sessionOf, viewerOf } from './http.js';

const NOTICES: Record<string, string> = {
  registered: 'The platform is registered. Launches from its deployments are accepted now.',
  removed: 'The platform is removed. Launches from it are refused; its courses’ collections stay.',
};

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
      input: extra.input ?? EMPTY,
      error: extra.error ?? null,
    });
  };

  return async (app: FastifyInstance) => {
    app.get('/lti', { preHandler: requireSession, config: { access: 'admin' } }, async (request, reply) =>
      sendPage(reply, await page(request, {})),
    );

    app.post('/lti', { preHandler: requireSession, config: { audit: 'lti_registration.created' } }, async (request, reply) => {
      const input = Object.fromEntries(REGISTRATION_FIELDS.map((name) => [name, formField(request, name) ?? ''])) as LtiFormInput;
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

    app.post<{ Params: { id: string } }>(
      '/lti/:id/delete',
      { preHandler: requireSession, config: { audit: 'lti_registration.deleted' } },
      async (request, reply) => {
        await removeRegistration(deps, sessionOf(request).account.id, request.params.id);
        return redirect(reply, '/dashboard/lti?notice=removed');
      },
    );
  };
}
