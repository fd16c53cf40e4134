import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { CollectionParams } from '../users/schemas.js';
import { InvitationsBody, InvitationsResult } from './schemas.js';
import { queueInvitations } from './service.js';

export const invitationsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/collections/:collection_id/invitations',
      {
        config: { audit: 'invitations.queued' },
        schema: {
          tags: ['Invitations'],
          operationId: 'invitations.send',
          summary: 'Invite people to record their names',
          description:
            'Queues one e-mail per person with their record link, in the person’s `language` (else the collection’s), from its sender name, ' +
            'with a one-click unsubscribe. `{"user_ids": […]}` (1 to 1000) or `{"filter": "not_recorded"}` (everyone ' +
            'with no recording or asked to record again). People invited in the last 24 hours are skipped unless ' +
            '`"resend": true`; unsubscribed people always are. People invited before get the reminder text ' +
            '(`invitation_settings.reminder_message`) instead of the invitation. Answers 202 with the counts (by language, and how ' +
            'many reminders); each person’s `invitation` shows `queued`, then `sent` or `failed`, and `invitation.sent` / ' +
            '`invitation.failed` events follow. `"dry_run": true` answers 200 with the same counts and queues nothing.',
          params: CollectionParams,
          body: InvitationsBody,
          response: {
            200: InvitationsResult,
            202: InvitationsResult,
            400: ErrorResponse,
            401: ErrorResponse,
            404: ErrorResponse,
          },
        },
      },
      async (request, reply) => {
        const result = await queueInvitations(deps, accountOf(request), request.params.collection_id, request.body);
        return reply.code(result.dry_run ? 200 : 202).send(result);
      },
    );
  };
