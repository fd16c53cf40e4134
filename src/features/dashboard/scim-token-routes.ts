/**
 * The dashboard's SCIM tokens (the "Provisioning (SCIM)" card of the API keys page): create
 * (shown once), revoke (refused from that moment). Admins and owners only, as every form
 * (`enforceAccess`); both are audit-logged. Registered inside the dashboard plugin.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditObject } from '../../http/audit.js';
import type { SafeHtml } from '../../web/html.js';
import type { Viewer } from '../../web/views/dashboard/layout.js';
import { MAX_SCIM_TOKEN_NAME, revokeScimTokenPage, scimTokenCreatedPage } from '../../web/views/dashboard/scim-tokens.js';
import { createScimToken, listScimTokens, revokeScimToken } from '../scim/token-service.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';

type IdRoute = { Params: { id: string } };

export interface ScimTokenPageContext {
  styleUrl: string;
  viewerOf: (request: FastifyRequest) => Viewer | null;
  /** The API keys page with the card showing `error` (a refused name). */
  keysPageWithScimError: (request: FastifyRequest, error: string) => Promise<SafeHtml>;
}

const missing = () => new AppError('resource_missing', 'No such active SCIM token in your organisation.');

export const scimTokenRoutes = (deps: Deps, context: ScimTokenPageContext) => async (app: FastifyInstance) => {
  const viewer = (request: FastifyRequest) => context.viewerOf(request) as Viewer;

  app.post(
    '/scim-tokens',
    { preHandler: requireSession, config: { audit: 'scim_token.created' } },
    async (request, reply: FastifyReply) => {
      const name = (formField(request, 'name') ?? '').trim();
      if ([...name].length > MAX_SCIM_TOKEN_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
        const error = `The name must be at most ${MAX_SCIM_TOKEN_NAME} characters of text.`;
        return sendPage(reply, await context.keysPageWithScimError(request, error), 400);
      }
      const created = await createScimToken(deps, sessionOf(request).account.id, name === '' ? null : name);
      auditObject(request, created.id);
      const page = scimTokenCreatedPage({
        styleUrl: context.styleUrl,
        viewer: viewer(request),
        token: created.token,
        name: created.name,
        baseUrl: deps.config.baseUrl,
      });
      return sendPage(reply, page, 201);
    },
  );

  app.get<IdRoute>(
    '/scim-tokens/:id/revoke',
    { preHandler: requireSession, config: { access: 'admin' } },
    async (request, reply) => {
      const tokens = await listScimTokens(deps, sessionOf(request).account.id);
      const token = tokens.find((item) => item.id === request.params.id && item.revoked_at === null);
      if (!token) throw missing();
      return sendPage(reply, revokeScimTokenPage({ styleUrl: context.styleUrl, viewer: viewer(request), token }));
    },
  );

  app.post<IdRoute>(
    '/scim-tokens/:id/revoke',
    { preHandler: requireSession, config: { audit: 'scim_token.revoked' } },
    async (request, reply) => {
      // Scoped to the signed-in organisation: another's token id is a 404, as if it did not exist.
      await revokeScimToken(deps, sessionOf(request).account.id, request.params.id);
      return redirect(reply, '/dashboard/api-keys?notice=scim-token-revoked#scim');
    },
  );
};
