/**
 * Invitations from the dashboard: e-mail everyone still to record from the people table (or only
 * those whose name has no recording and no approved computer voice, by coverage), or one person
 * from their page. The same service as `POST /v1/collections/{id}/invitations`.
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import type { InvitationsBody } from '../invitations/schemas.js';
import { queueInvitations } from '../invitations/service.js';
import { formField, redirect, requireSession, sessionOf } from './http.js';

/** The invite form's choices (`INVITE_CHOICES`) as the API's selections. */
const INVITE_SELECTIONS: Record<string, Pick<InvitationsBody, 'filter' | 'coverage'>> = {
  not_recorded: { filter: 'not_recorded' },
  no_voice: { coverage: ['guide', 'none'] },
  guide: { coverage: ['guide'] },
  none: { coverage: ['none'] },
};

export function invitationRoutes(deps: Deps, _options: { styleUrl: string }) {
  return async (app: FastifyInstance) => {
    app.post<{ Params: { id: string } }>(
      '/collections/:id/invitations',
      { preHandler: requireSession, config: { audit: 'invitations.queued' } },
      async (request, reply) => {
        const who = formField(request, 'who') ?? 'not_recorded';
        const selection = INVITE_SELECTIONS[who];
        if (!selection) throw new AppError('parameter_invalid', 'Choose who to e-mail.', { param: 'who' });
        const result = await queueInvitations(deps, sessionOf(request).account.id, request.params.id, {
          ...selection,
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
