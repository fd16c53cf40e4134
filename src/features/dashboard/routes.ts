/**
 * The developer dashboard at `{BASE_URL}/dashboard`: server-rendered pages and plain HTML forms
 * for signed-in humans. Sign-in is by e-mailed link (`auth-routes.ts`); these pages manage
 * API keys, webhooks (`webhook-routes.ts`), claimed agent profiles and the collection pages
 * (`collection-routes.ts`, `person-routes.ts`, `reader-routes.ts`: collections, their people and
 * the ceremony reader), all through the features' own services; members, organisations and the
 * audit log are in `members-routes.ts` and `audit-routes.ts`.
 *
 * Every route passes `enforceAccess` (`access.ts`): by default any member may GET and only admins
 * and owners may change anything; a route's `config.access` says otherwise. Every mutating route
 * names its audit action in `config.audit` (src/http/audit.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { toAppError } from '../../http/error-handler.js';
import { isUuid } from '../../lib/ids.js';
import { apiKeyCreatedPage, apiKeysPage, MAX_KEY_NAME, revokeKeyPage } from '../../web/views/dashboard/api-keys.js';
import { auditObject } from '../../http/audit.js';
import { errorPage, type Viewer } from '../../web/views/dashboard/layout.js';
import { overviewPage } from '../../web/views/dashboard/overview.js';
import { profilesPage } from '../../web/views/dashboard/profiles.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../api-keys/service.js';
import {
  claimEntity,
  listClaimedEntities,
  setClaimedEntityVisibility,
  slugFromProfileInput,
} from '../profile-ownership/service.js';
import { countCollections } from '../collections/service.js';
import { listWebhookHealth } from '../webhooks/service.js';
import { enforceAccess } from './access.js';
import { auditRoutes } from './audit-routes.js';
import { authRoutes } from './auth-routes.js';
import { collectionFileRoutes } from './collection-file-routes.js';
import { collectionRoutes } from './collection-routes.js';
import { invitationRoutes } from './invitation-routes.js';
import { settingsRoutes } from './settings-routes.js';
import { samlRoutes } from './saml-routes.js';
import { ssoRoutes } from './sso-routes.js';
import {
  formField,
  loadSession,
  personOf,
  redirect,
  registerPagePlumbing,
  requireSession,
  sendPage,
  sessionOf,
  viewerOf,
} from './http.js';
import { ltiRoutes } from './lti-routes.js';
import { membersRoutes } from './members-routes.js';
import { guideRoutes } from './guide-routes.js';
import { personRoutes } from './person-routes.js';
import { readerRoutes } from './reader-routes.js';
import { reviewRoutes } from './review-routes.js';
import { stageRoutes } from './stage-routes.js';
import { countSessions, signOutOtherSessions } from './service.js';
import { profileDomainRoutes } from './profile-domain-routes.js';
import { profileManageRoutes } from './profile-manage-routes.js';
import { webhookRoutes } from './webhook-routes.js';
import { scimTokenRoutes } from './scim-token-routes.js';
import { scimCard } from '../../web/views/dashboard/scim-tokens.js';
import { listScimTokens } from '../scim/token-service.js';

/** Success messages shown after a redirect, chosen by a fixed code in the query (never echoed input). */
export const NOTICES: Record<string, string> = {
  'key-revoked': 'The key was revoked. Requests using it now fail with 401.',
  'scim-token-revoked': 'The SCIM token was revoked. Your identity provider’s requests with it now fail with 401.',
  'signed-out': 'You are signed out.',
  'sessions-ended': 'You are signed out on every other browser.',
  'profile-claimed': 'The profile is claimed by your account and shows as verified.',
  'profile-visibility': 'The profile’s visibility is changed. Cached copies of the page may take a minute to follow.',
  'profile-updated': 'The profile is saved. Cached copies of the page may take a minute to follow.',
  'profile-deleted': 'The profile is deleted: its addresses answer 410 Gone.',
  'domain-verified':
    'The domain is verified: the profile now says “Verified” with it. Cached copies may take a minute to follow.',
};

const noticeOf = (query: unknown): string | null => {
  const code = (query as { notice?: unknown } | undefined)?.notice;
  return typeof code === 'string' ? (NOTICES[code] ?? null) : null;
};

export function dashboardRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const secure = deps.config.dashboard.secureCookies;
    const styleUrl = deps.assets.url('dashboard.css');
    app.decorateRequest('dashboard', null);
    app.decorateRequest('dashboardPerson', null);
    await registerPagePlumbing(app, { secure });
    app.addHook('onRequest', loadSession(deps));
    app.addHook('preHandler', enforceAccess);

    app.setErrorHandler((error, request, reply) => {
      // Fastify's own failures (unreadable bodies, limits) keep their 4xx status; the rest are 500.
      const known = toAppError(error as Error);
      const status = known.status;
      if (status >= 500) request.log.error({ err: known.cause ?? error }, 'dashboard request failed');
      const title =
        status === 404
          ? 'Not found'
          : known.code === 'role_forbidden'
            ? 'Not allowed'
            : status === 403
              ? 'Form refused'
              : status === 429
                ? 'Too many requests'
                : status < 500
                  ? 'Request refused'
                  : 'Something went wrong';
      const message =
        known.code !== 'internal_error' ? known.message : 'Something went wrong on our side. Try again in a moment.';
      reply.headers(known.headers);
      return sendPage(reply, errorPage({ styleUrl, viewer: viewerOf(request), title, message }), status);
    });
    app.setNotFoundHandler((request, reply) =>
      sendPage(
        reply,
        errorPage({
          styleUrl,
          viewer: viewerOf(request),
          title: 'Not found',
          message: 'There is no such page in the dashboard.',
        }),
        404,
      ),
    );

    await app.register(authRoutes(deps, { styleUrl, secure }));
    await app.register(membersRoutes(deps, { styleUrl, secure }));
    await app.register(ssoRoutes(deps, { styleUrl, secure }));
    await app.register(samlRoutes(deps, { styleUrl, secure }));
    await app.register(auditRoutes(deps, { styleUrl }));
    await app.register(ltiRoutes(deps, { styleUrl }));
    for (const pages of [
      collectionRoutes,
      settingsRoutes,
      invitationRoutes,
      collectionFileRoutes,
      personRoutes,
      reviewRoutes,
      guideRoutes,
      readerRoutes,
      stageRoutes,
    ])
      await app.register(pages(deps, { styleUrl }));

    app.get('/', { preHandler: requireSession }, async (request, reply) => {
      const session = sessionOf(request);
      const [keys, webhooks, sessions, profiles, collections] = await Promise.all([
        listApiKeys(deps, session.account.email),
        listWebhookHealth(deps, session.account.id),
        countSessions(deps, session.member.email),
        listClaimedEntities(deps, session.account.id),
        countCollections(deps, session.account.id),
      ]);
      return sendPage(
        reply,
        overviewPage({
          styleUrl,
          viewer: viewerOf(request) as Viewer,
          baseUrl: deps.config.baseUrl,
          activeKeys: keys.filter((k) => k.revoked_at === null).length,
          webhooks: webhooks.length,
          disabledWebhooks: webhooks.filter((w) => w.status === 'disabled').map((w) => ({ id: w.id, url: w.url })),
          claimedProfiles: profiles.length,
          collections,
          sessions,
          notice: noticeOf(request.query),
        }),
      );
    });

    // A kind of sign-out: it ends only the person's own other sessions, whatever their role.
    const endSessions = { access: 'signed-in', audit: { exempt: 'ends the signed-in person’s own other sessions' } } as const;
    app.post('/sessions/revoke-others', { config: endSessions }, async (request, reply) => {
      await signOutOtherSessions(deps, personOf(request));
      return redirect(reply, '/dashboard?notice=sessions-ended');
    });

    // --- API keys -------------------------------------------------------------------------
    const keysPage = async (
      request: Parameters<typeof sessionOf>[0],
      error: string | null = null,
      scimError: string | null = null,
    ) =>
      apiKeysPage({
        styleUrl,
        viewer: viewerOf(request) as Viewer,
        keys: await listApiKeys(deps, sessionOf(request).account.email),
        notice: error === null && scimError === null ? noticeOf(request.query) : null,
        error,
        provisioning: scimCard({
          viewer: viewerOf(request) as Viewer,
          tokens: await listScimTokens(deps, sessionOf(request).account.id),
          baseUrl: deps.config.baseUrl,
          error: scimError,
        }),
      });

    app.get('/api-keys', { preHandler: requireSession }, async (request, reply) => sendPage(reply, await keysPage(request)));

    app.post('/api-keys', { preHandler: requireSession, config: { audit: 'api_key.created' } }, async (request, reply) => {
      const session = sessionOf(request);
      const name = (formField(request, 'name') ?? '').trim();
      if ([...name].length > MAX_KEY_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
        return sendPage(reply, await keysPage(request, `The name must be at most ${MAX_KEY_NAME} characters of text.`), 400);
      }
      const created = await createApiKey(deps, { accountEmail: session.account.email, name: name === '' ? null : name });
      auditObject(request, created.id);
      return sendPage(
        reply,
        apiKeyCreatedPage({
          styleUrl,
          viewer: viewerOf(request) as Viewer,
          key: created.key,
          name: created.name,
          baseUrl: deps.config.baseUrl,
        }),
        201,
      );
    });

    const requireOwnActiveKey = async (request: Parameters<typeof sessionOf>[0], id: string) => {
      const key = isUuid(id) ? (await listApiKeys(deps, sessionOf(request).account.email)).find((k) => k.id === id) : undefined;
      if (!key || key.revoked_at !== null) throw new AppError('resource_missing', 'No such active API key in your account.');
      return key;
    };

    app.get<{ Params: { id: string } }>('/api-keys/:id/revoke', { preHandler: requireSession }, async (request, reply) => {
      const key = await requireOwnActiveKey(request, request.params.id);
      return sendPage(reply, revokeKeyPage({ styleUrl, viewer: viewerOf(request) as Viewer, key }));
    });

    const revokeKey = { preHandler: requireSession, config: { audit: 'api_key.revoked' } };
    app.post<{ Params: { id: string } }>('/api-keys/:id/revoke', revokeKey, async (request, reply) => {
      if (!isUuid(request.params.id)) throw new AppError('resource_missing', 'No such active API key in your account.');
      // Scoped to the signed-in account: another account's key id is a 404, as if it did not exist.
      await revokeApiKey(deps, request.params.id, sessionOf(request).account.id).catch((error) => {
        if (error instanceof AppError && error.status === 404)
          throw new AppError('resource_missing', 'No such active API key in your account.');
        throw error;
      });
      return redirect(reply, '/dashboard/api-keys?notice=key-revoked');
    });

    await app.register(webhookRoutes(deps, { styleUrl, viewerOf }));
    await app.register(
      scimTokenRoutes(deps, { styleUrl, viewerOf, keysPageWithScimError: (request, error) => keysPage(request, null, error) }),
    );
    await app.register(profileDomainRoutes(deps, { styleUrl }));
    await app.register(profileManageRoutes(deps, { styleUrl }));

    // --- Agent profiles -------------------------------------------------------------------
    const profileList = async (accountId: string) =>
      (await listClaimedEntities(deps, accountId)).map((p) => ({
        ...p,
        url: `${deps.config.siteUrl}/e/${encodeURIComponent(p.slug)}`,
      }));

    const renderProfiles = async (
      request: Parameters<typeof sessionOf>[0],
      extra: { error?: string; profileInput?: string } = {},
    ) =>
      profilesPage({
        styleUrl,
        viewer: viewerOf(request) as Viewer,
        profiles: await profileList(sessionOf(request).account.id),
        siteUrl: deps.config.siteUrl,
        notice: extra.error ? null : noticeOf(request.query),
        ...extra,
      });

    app.get('/profiles', { preHandler: requireSession }, async (request, reply) =>
      sendPage(reply, await renderProfiles(request)),
    );

    app.post('/profiles/claim', { preHandler: requireSession, config: { audit: 'profile.claimed' } }, async (request, reply) => {
      const profileInput = (formField(request, 'profile') ?? '').trim().slice(0, 300);
      const token = (formField(request, 'deletion_token') ?? '').trim();
      const slug = slugFromProfileInput(profileInput);
      const refuse = async (status: number, error: string) =>
        sendPage(reply, await renderProfiles(request, { error, profileInput }), status);
      if (slug === null) return refuse(400, 'Enter the profile URL (…/e/<name>) or the name part of it.');
      if (token === '' || token.length > 100) return refuse(400, 'Enter the deletion token from the receipt.');
      auditObject(request, slug);
      try {
        await claimEntity(deps, sessionOf(request).account.id, slug, token);
      } catch (error) {
        if (error instanceof AppError && error.status < 500) return refuse(error.status, error.message);
        throw error;
      }
      return redirect(reply, '/dashboard/profiles?notice=profile-claimed');
    });

    app.post<{ Params: { slug: string } }>(
      '/profiles/:slug/visibility',
      { preHandler: requireSession, config: { audit: 'profile.visibility_changed' } },
      async (request, reply) => {
        const visibility = formField(request, 'visibility') ?? '';
        try {
          await setClaimedEntityVisibility(deps, sessionOf(request).account.id, request.params.slug, visibility);
        } catch (error) {
          if (error instanceof AppError && error.status < 500)
            return sendPage(reply, await renderProfiles(request, { error: error.message }), error.status);
          throw error;
        }
        return redirect(reply, '/dashboard/profiles?notice=profile-visibility');
      },
    );
  };
}
