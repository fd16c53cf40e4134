/** The dashboard's domain proof for claimed agent profiles (src/features/profile-ownership/domain-service.ts). */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { profileDomainPage } from '../../web/views/dashboard/profile-domain.js';
import { domainProofOf, verifyDomain } from '../profile-ownership/domain-service.js';
import { findOwnedEntity } from '../profile-ownership/service.js';
import { viewerOf } from './forms.js';
import { redirect, requireSession, sendPage, sessionOf } from './http.js';

type Params = { Params: { slug: string } };

export function profileDomainRoutes(deps: Deps, options: { styleUrl: string }) {
  return async (app: FastifyInstance) => {
    const render = async (
      request: Parameters<typeof sessionOf>[0] & { params: { slug: string } },
      error: string | null = null,
    ) => {
      const accountId = sessionOf(request).account.id;
      const proof = await domainProofOf(deps, accountId, request.params.slug);
      if (!proof) throw new AppError('resource_missing', 'This profile has no homepage whose domain could be verified.');
      const { name } = await findOwnedEntity(deps, accountId, request.params.slug);
      return profileDomainPage({
        styleUrl: options.styleUrl,
        viewer: viewerOf(request),
        profile: { slug: request.params.slug, name },
        proof,
        error,
      });
    };

    app.get<Params>('/profiles/:slug/domain', { preHandler: requireSession }, async (request, reply) =>
      sendPage(reply, await render(request)),
    );

    app.post<Params>(
      '/profiles/:slug/domain',
      { preHandler: requireSession, config: { audit: 'profile.domain_verified' } },
      async (request, reply) => {
        try {
          await verifyDomain(deps, sessionOf(request).account.id, request.params.slug);
        } catch (error) {
          if (error instanceof AppError && error.code === 'domain_not_verified') {
            return sendPage(reply, await render(request, error.message), 400);
          }
          throw error;
        }
        return redirect(reply, '/dashboard/profiles?notice=domain-verified');
      },
    );
  };
}
