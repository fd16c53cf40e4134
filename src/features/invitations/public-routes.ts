/**
 * The unsubscribe link of every mail to people: `GET /u/<token>` shows what it does, `POST`
 * does it, from the page's button or a mail client's one-click request (RFC 8058: a POST with
 * the form body `List-Unsubscribe=One-Click`, sent by the mail provider's servers, so with no
 * Origin to check; the token is the capability and unsubscribing harms no one).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.js';
import { applyPageSecurity, type PageSecurity } from '../../http/security-headers.js';
import { personLocale } from '../../i18n/index.js';
import { unsubscribePage } from '../../web/views/unsubscribe.js';
import { describeUnsubscribe, unsubscribe } from './service.js';

const Params = Type.Object({ token: Type.String({ maxLength: 64 }) });

export const unsubscribeRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    // The body (`List-Unsubscribe=One-Click`, or the page's empty form) says nothing we need.
    app.addContentTypeParser(
      ['application/x-www-form-urlencoded', 'multipart/form-data'],
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, _body, done) => done(null, {}),
    );
    const security: PageSecurity = {
      csp: ["default-src 'none'", "style-src 'self'", "img-src 'self'", "form-action 'self'", "base-uri 'none'"],
      https: deps.config.baseUrl.startsWith('https:'),
    };
    const page = (
      request: { headers: { 'accept-language'?: string }; params: { token: string } },
      subject: Awaited<ReturnType<typeof describeUnsubscribe>>,
    ) =>
      unsubscribePage({
        locale: personLocale(subject?.personLanguage, request.headers['accept-language'], subject?.collectionLanguage),
        styleUrl: deps.assets.url('recorder.css'),
        subject,
        actionUrl: `/u/${request.params.token}`,
      }).toString();

    const answer = (
      request: Parameters<typeof page>[0],
      reply: FastifyReply,
      subject: Awaited<ReturnType<typeof describeUnsubscribe>>,
    ) =>
      applyPageSecurity(reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex, nofollow'), security)
        .code(subject ? 200 : 404)
        .type('text/html; charset=utf-8')
        .send(page(request, subject));

    app.get('/u/:token', { schema: { hide: true, params: Params } }, async (request, reply) =>
      answer(request, reply, await describeUnsubscribe(deps, request.params.token)),
    );

    app.post(
      '/u/:token',
      { schema: { hide: true, params: Params }, config: { audit: 'person.unsubscribed' } },
      async (request, reply) => answer(request, reply, await unsubscribe(deps, request.params.token)),
    );
  };
