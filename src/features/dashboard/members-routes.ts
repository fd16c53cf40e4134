/**
 * Organisations in the dashboard: picking and switching the organisation a session acts in, the
 * members page (admins see it; owners invite, change roles and remove), and invitation links.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { auditDetail, auditObject } from '../../http/audit.js';
import { html } from '../../web/html.js';
import { errorPage, type Role, type Viewer } from '../../web/views/dashboard/layout.js';
import { invitationPage, membersPage } from '../../web/views/dashboard/members.js';
import { organisationsPage } from '../../web/views/dashboard/organisations.js';
import {
  cancelInvitation,
  changeMemberRole,
  invitationPath,
  inviteMember,
  listInvitations,
  listMembers,
  previewInvitation,
  removeMember,
} from '../accounts/members-service.js';
import { isMemberRole, listMemberships, renameOrganisation } from '../accounts/service.js';
import {
  clearCookie,
  formField,
  personOf,
  readCookie,
  redirect,
  requireFormToken,
  SESSION_COOKIE,
  SIGN_IN_COOKIE,
  sendPage,
  sessionOf,
  setCookie,
  signInBinding,
  viewerOf,
} from './http.js';
import { formToken, signInWithInvitation, switchOrganisation } from './service.js';

const NOTICES: Record<string, string> = {
  'member-invited': 'The invitation is on its way. It works once, within 7 days.',
  'role-changed': 'The role is changed. It applies from the member’s next page.',
  'member-removed': 'The member is removed. Their sessions in this organisation have ended.',
  'invitation-withdrawn': 'The invitation is withdrawn; its link no longer works.',
  'organisation-renamed': 'The organisation is renamed. Members see the new name from their next page.',
};

export function membersRoutes(deps: Deps, options: { styleUrl: string; secure: boolean }) {
  const { styleUrl, secure } = options;

  const noticeOf = (request: FastifyRequest): string | null => {
    const code = (request.query as { notice?: unknown } | undefined)?.notice;
    return typeof code === 'string' ? (NOTICES[code] ?? null) : null;
  };

  const renderMembers = async (
    request: FastifyRequest,
    extra: { error?: string; invite?: { email: string; role: Role }; nameError?: string; typedName?: string } = {},
  ) => {
    const session = sessionOf(request);
    const accountId = session.account.id;
    const [members, invitations] = await Promise.all([listMembers(deps, accountId), listInvitations(deps, accountId)]);
    return membersPage({
      styleUrl,
      viewer: viewerOf(request) as Viewer,
      members,
      invitations,
      organisation: { name: session.account.name, email: session.account.email },
      notice: extra.error || extra.nameError ? null : noticeOf(request),
      ...extra,
    });
  };

  /** Runs a member change; a refusal (bad input, last owner, unknown member…) shows the page again with the reason. */
  const memberChange = async (
    request: FastifyRequest,
    reply: FastifyReply,
    change: () => Promise<unknown>,
    notice: string,
    invite?: { email: string; role: Role },
  ) => {
    try {
      await change();
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      reply.headers(error.headers);
      return sendPage(reply, await renderMembers(request, { error: error.message, ...(invite ? { invite } : {}) }), error.status);
    }
    return redirect(reply, `/dashboard/members?notice=${notice}`);
  };

  const emailField = (request: FastifyRequest) => (formField(request, 'email') ?? '').trim().slice(0, 320);

  return async (app: FastifyInstance) => {
    // --- Picking the organisation ------------------------------------------------------------
    app.get('/organisations', { config: { access: 'signed-in' } }, async (request, reply) => {
      const current = request.dashboard?.account.id;
      const memberships = await listMemberships(deps, personOf(request).email);
      const organisations = memberships.map((m) => ({
        accountId: m.accountId,
        name: m.organisation,
        role: m.role,
        current: m.accountId === current,
      }));
      return sendPage(reply, organisationsPage({ styleUrl, viewer: viewerOf(request) as Viewer, organisations }));
    });

    const switchConfig = {
      access: 'signed-in',
      audit: { exempt: 'changes which organisation the session shows, nothing in it' },
    } as const;
    app.post('/organisations/switch', { config: switchConfig }, async (request, reply) => {
      await switchOrganisation(deps, personOf(request), (formField(request, 'account') ?? '').slice(0, 64));
      return redirect(reply, '/dashboard');
    });

    // --- Members -----------------------------------------------------------------------------
    app.get('/members', { config: { access: 'admin' } }, async (request, reply) => sendPage(reply, await renderMembers(request)));

    // Admins rename (the default access: the members page is theirs too); viewers never see the form.
    app.post('/organisation/name', { config: { audit: 'organisation.renamed' } }, async (request, reply) => {
      const session = sessionOf(request);
      const typedName = (formField(request, 'organisation_name_new') ?? '').slice(0, 1000);
      auditObject(request, session.account.id);
      try {
        const renamed = await renameOrganisation(deps, { accountId: session.account.id, name: typedName });
        auditDetail(request, renamed);
      } catch (error) {
        if (!(error instanceof AppError) || error.status >= 500) throw error;
        const page = await renderMembers(request, { nameError: error.message, typedName });
        return sendPage(reply, page, error.status);
      }
      return redirect(reply, '/dashboard/members?notice=organisation-renamed');
    });

    app.post('/members/invite', { config: { access: 'owner', audit: 'member.invited' } }, async (request, reply) => {
      const session = sessionOf(request);
      const email = emailField(request);
      const role = formField(request, 'role');
      auditObject(request, email.toLowerCase());
      const invite = { email, role: isMemberRole(role) ? role : 'viewer' };
      return memberChange(
        request,
        reply,
        () => inviteMember(deps, { accountId: session.account.id, invitedBy: session.member.email, email, role }),
        'member-invited',
        invite,
      );
    });

    app.post('/members/role', { config: { access: 'owner', audit: 'member.role_changed' } }, async (request, reply) => {
      const email = emailField(request);
      auditObject(request, email.toLowerCase());
      const role = formField(request, 'role');
      return memberChange(
        request,
        reply,
        () => changeMemberRole(deps, { accountId: sessionOf(request).account.id, email, role }),
        'role-changed',
      );
    });

    app.post('/members/remove', { config: { access: 'owner', audit: 'member.removed' } }, async (request, reply) => {
      const email = emailField(request);
      auditObject(request, email.toLowerCase());
      return memberChange(
        request,
        reply,
        () => removeMember(deps, { accountId: sessionOf(request).account.id, email }),
        'member-removed',
      );
    });

    app.post<{ Params: { id: string } }>(
      '/members/invitations/:id/withdraw',
      { config: { access: 'owner', audit: 'invitation.withdrawn' } },
      async (request, reply) => {
        await cancelInvitation(deps, sessionOf(request).account.id, request.params.id);
        return redirect(reply, '/dashboard/members?notice=invitation-withdrawn');
      },
    );

    // --- Invitation links ----------------------------------------------------------------------
    const invitationProblem = (reply: FastifyReply, error: unknown) => {
      if (!(error instanceof AppError) || error.code !== 'invitation_invalid') throw error;
      const next = html`<p><a href="/dashboard/sign-in" class="button primary">Sign in</a></p>`;
      return sendPage(reply, errorPage({ styleUrl, title: 'Invitation not valid', message: error.message, next }), 400);
    };

    // Opening the link shows what it offers and changes nothing, so mail scanners that follow
    // links use nothing up; pressing the button (a form bound to this browser) joins and signs in.
    app.get<{ Params: { token: string } }>('/invitations/:token', { config: { access: 'public' } }, async (request, reply) => {
      try {
        const offer = await previewInvitation(deps, request.params.token);
        const csrfToken = formToken(signInBinding(request, reply, secure));
        return sendPage(
          reply,
          invitationPage({
            styleUrl,
            action: invitationPath(request.params.token),
            csrfToken,
            email: offer.email,
            organisation: offer.organisation,
            role: offer.role,
            invitedBy: offer.invitedBy,
          }),
        );
      } catch (error) {
        return invitationProblem(reply, error);
      }
    });

    const acceptConfig = {
      access: 'public',
      audit: { exempt: 'the invitee is not a member until it succeeds; the owner’s invitation is audited as member.invited' },
    } as const;
    app.post<{ Params: { token: string } }>('/invitations/:token', { config: acceptConfig }, async (request, reply) => {
      requireFormToken(request, readCookie(request, SIGN_IN_COOKIE));
      try {
        const result = await signInWithInvitation(deps, {
          token: request.params.token,
          userAgent: request.headers['user-agent'],
        });
        const maxAgeSeconds = Math.floor((Date.parse(result.expiresAt) - deps.clock.now().getTime()) / 1000);
        setCookie(reply, SESSION_COOKIE, result.sessionId, { maxAgeSeconds, secure });
        clearCookie(reply, SIGN_IN_COOKIE, secure);
        return redirect(reply, '/dashboard');
      } catch (error) {
        return invitationProblem(reply, error);
      }
    });
  };
}
