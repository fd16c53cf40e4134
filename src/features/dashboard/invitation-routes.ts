/**
 * Invitations from the dashboard: e-mail everyone still to record from the people table, or one
 * person from their page. The same service as `POST /v1/collections/{id}/invitations`.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { queueInvitations } from '../invitations/service.js';
import { formField, redirect, requireSession, sessionOf } from './http.js';

export function invitationRoutes(deps: Deps, _options: { styleUrl: string }) {
  return async (app: FastifyInstance) => {
    app.post<{ Params: { id: string } }>(
      '/collections/:id/invitations',
      { preHandler: requireSession, config: { audit: 'invitations.queued' } },
      async (request, reply) => {
        const result = await queueInvitations(deps, sessionOf(request).account.id, request.params.id, {
          filter: 'not_recorded',
          resend: formField(request, 'resend') === 'true',
        });
        const notice = result.queued > 0 ? 'invitations-queued' : 'invitations-none';
        return redirect(reply, `/dashboard/collections/${result.collection_id}?notice=${notice}`);
      },
    );

    app.post<{ Params: { id: string; userId: string } }>(
      '/collections/:id/people/:userId/invite',
      { preHandler: requireSession, config: { audit: 'invitations.queued' } },
      async (request, reply) => {
        const { id, userId } = request.params;
        // Asked for one person by name: sent even when they were invited today.
        const result = await queueInvitations(deps, sessionOf(request).account.id, id, { user_ids: [userId], resend: true });
        const notice = result.queued > 0 ? 'invitation-queued' : 'invitation-skipped';
        return redirect(reply, `/dashboard/collections/${id}/people/${userId}?notice=${notice}`);
      },
    );
  };
}
