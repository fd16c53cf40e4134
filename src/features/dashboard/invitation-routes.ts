/**
 * Invitations from the dashboard: e-mail everyone still to record from the people table (or only
 * those whose name has no recording and no approved computer voice, by coverage), after a
 * confirmation naming how many get what; or one person from their page. The same service as
 * `POST /v1/collections/{id}/invitations`. The mail is previewed per language and kind, and
 * sent to oneself as a test, from the same message the sender builds.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { isLocale, type Locale } from '../../i18n/index.js';
import { invitationConfirmPage, mailPreviewPage } from '../../web/views/dashboard/invitations.js';
import { canChange } from '../../web/views/dashboard/layout.js';
import { invitationMail } from '../../web/views/invitation-mail.js';
import { getCollection } from '../collections/service.js';
import { PREVIEW_KINDS, type PreviewKind, previewMessage, sendTestMessage } from '../invitations/preview-service.js';
import type { InvitationsBody } from '../invitations/schemas.js';
import { queueInvitations } from '../invitations/service.js';
import { queryText, viewerOf } from './forms.js';
import { formField, redirect, requireSession, sendPage, sessionOf } from './http.js';
import { INVITE_CHOICES } from '../../web/views/dashboard/people.js';

/** The invite form's choices (`INVITE_CHOICES`) as the API's selections. */
const INVITE_SELECTIONS: Record<string, Pick<InvitationsBody, 'filter' | 'coverage'>> = {
  not_recorded: { filter: 'not_recorded' },
  no_voice: { coverage: ['guide', 'none'] },
  guide: { coverage: ['guide'] },
  none: { coverage: ['none'] },
};

function selectionOf(who: string): Pick<InvitationsBody, 'filter' | 'coverage'> {
  const selection = INVITE_SELECTIONS[who];
  if (!selection) throw new AppError('parameter_invalid', 'Choose who to e-mail.', { param: 'who' });
  return selection;
}

const confirmUrl = (collectionId: string, who: string, resend: boolean, changed = false) =>
  `/dashboard/collections/${collectionId}/invitations/confirm?who=${encodeURIComponent(who)}${resend ? '&resend=true' : ''}${changed ? '&changed=true' : ''}`;

/** The previewed mail's kind and language from the query (the collection's language by default). */
function previewChoice(request: FastifyRequest, fallback: string): { kind: PreviewKind; locale: Locale } {
  const kind = queryText(request, 'kind') ?? formField(request, 'kind') ?? 'invitation';
  const language = queryText(request, 'language') ?? formField(request, 'language') ?? fallback;
  if (!(PREVIEW_KINDS as readonly string[]).includes(kind)) {
    throw new AppError('parameter_invalid', 'Choose the invitation or the reminder.', { param: 'kind' });
  }
  if (!isLocale(language)) throw new AppError('parameter_invalid', 'Choose one of the listed languages.', { param: 'language' });
  return { kind: kind as PreviewKind, locale: language };
}

/** The mail's own page: its HTML part, with no scripts, styles only inline as mail has them, and no forms. */
const MAIL_HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; sandbox";

export function invitationRoutes(deps: Deps, options: { styleUrl: string }) {
  const { styleUrl } = options;
  return async (app: FastifyInstance) => {
    const accountOf = (request: FastifyRequest) => sessionOf(request).account.id;

    app.get<{ Params: { id: string } }>(
      '/collections/:id/invitations/confirm',
      { preHandler: requireSession, config: { access: 'admin' } },
      async (request, reply) => {
        const who = queryText(request, 'who') ?? 'not_recorded';
        const resend = queryText(request, 'resend') === 'true';
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const plan = await queueInvitations(deps, accountOf(request), collection.id, {
          ...selectionOf(who),
          resend,
          dry_run: true,
        });
        const viewer = viewerOf(request);
        const whoLabel = INVITE_CHOICES[who] ?? '';
        const changed = queryText(request, 'changed') === 'true';
        return sendPage(reply, invitationConfirmPage({ styleUrl, viewer, collection, who, whoLabel, resend, plan, changed }));
      },
    );

    app.post<{ Params: { id: string } }>(
      '/collections/:id/invitations',
      { preHandler: requireSession, config: { audit: 'invitations.queued' } },
      async (request, reply) => {
        const who = formField(request, 'who') ?? 'not_recorded';
        const resend = formField(request, 'resend') === 'true';
        const body = { ...selectionOf(who), resend };
        // Confirmed for a count: if people recorded or were added since, the organiser looks again.
        const expected = formField(request, 'expected');
        if (expected !== undefined) {
          const plan = await queueInvitations(deps, accountOf(request), request.params.id, { ...body, dry_run: true });
          if (String(plan.queued) !== expected) return redirect(reply, confirmUrl(plan.collection_id, who, resend, true));
        }
        const result = await queueInvitations(deps, accountOf(request), request.params.id, body);
        // Nothing sent: the confirmation page says why, and offers to include people e-mailed today.
        if (result.queued === 0) return redirect(reply, confirmUrl(result.collection_id, who, resend));
        return redirect(reply, `/dashboard/collections/${result.collection_id}?notice=invitations-queued`);
      },
    );

    app.post<{ Params: { id: string; userId: string } }>(
      '/collections/:id/people/:userId/invite',
      { preHandler: requireSession, config: { audit: 'invitations.queued' } },
      async (request, reply) => {
        const { id, userId } = request.params;
        // Asked for one person by name: sent even when they were invited today.
        const result = await queueInvitations(deps, accountOf(request), id, { user_ids: [userId], resend: true });
        const notice = result.reminders > 0 ? 'reminder-queued' : result.queued > 0 ? 'invitation-queued' : 'invitation-skipped';
        return redirect(reply, `/dashboard/collections/${id}/people/${userId}?notice=${notice}`);
      },
    );

    const previewPage = async (
      request: FastifyRequest<{ Params: { id: string } }>,
      extra: { sentTo?: string; error?: string } = {},
    ) => {
      const collection = await getCollection(deps, accountOf(request), request.params.id);
      const choice = previewChoice(request, collection.language);
      const preview = await previewMessage(deps, accountOf(request), collection.id, choice);
      const { sender, ...data } = preview.data;
      const mail = invitationMail({ kind: choice.kind, locale: choice.locale, ...data });
      const viewer = viewerOf(request);
      return mailPreviewPage({
        styleUrl,
        viewer,
        collection,
        ...choice,
        mail: { subject: mail.subject, text: mail.text, fromName: sender.name, replyTo: sender.replyTo },
        sampleName: preview.sampleName,
        canSend: canChange(viewer),
        ...extra,
      });
    };

    app.get<{ Params: { id: string } }>(
      '/collections/:id/invitations/preview',
      { preHandler: requireSession },
      async (request, reply) => sendPage(reply, await previewPage(request)),
    );

    app.get<{ Params: { id: string } }>(
      '/collections/:id/invitations/preview/mail.html',
      { preHandler: requireSession },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const choice = previewChoice(request, collection.language);
        const { data } = await previewMessage(deps, accountOf(request), collection.id, choice);
        const { sender: _sender, ...content } = data;
        return reply
          .header('content-security-policy', MAIL_HTML_CSP)
          .type('text/html; charset=utf-8')
          .send(invitationMail({ kind: choice.kind, locale: choice.locale, ...content }).html);
      },
    );

    app.post<{ Params: { id: string } }>(
      '/collections/:id/invitations/test',
      { preHandler: requireSession, config: { audit: 'invitations.test_sent' } },
      async (request, reply) => {
        const collection = await getCollection(deps, accountOf(request), request.params.id);
        const choice = previewChoice(request, collection.language);
        const to = viewerOf(request).email;
        try {
          await sendTestMessage(deps, accountOf(request), collection.id, { ...choice, to });
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== 'mail_unavailable') throw error;
          return sendPage(reply, await previewPage(request, { error: error.message }), 503);
        }
        return sendPage(reply, await previewPage(request, { sentTo: to }));
      },
    );
  };
}
