/**
 * The public recorder: `GET /r/<token>` (the page), `POST /r/<token>/recording` (its upload,
 * raw audio body, answering the play-link object or an error envelope) and the person's own
 * forms (their details, deleting their recording). No account: the
 * token is the capability. Rate-limited per client address.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { registerRateLimit } from '../../http/rate-limit-fields.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { checkBody } from '../../http/validation.js';
import { negotiateLocale, personLocale } from '../../i18n/index.js';
import { escapeHtml } from '../../web/html.js';
import { type RecorderPageData, recorderNotFoundPage, recorderPage } from '../../web/views/recorder.js';
import { brandStyleUrl } from '../collections/brand-color.js';
import { logoUrl } from '../collections/service.js';
import { signatureSnippet } from '../play-links/images.js';
import { frameOriginsOf } from '../lti/framing.js';
import { getPlayLink } from '../play-links/service.js';
import { UpdateUserBody } from '../users/schemas.js';
import { PERSON_EDITABLE_FIELDS } from '../users/provenance.js';
import { updateUser } from '../users/service.js';
import { recorderGuideData, registerGuideRoutes } from './recorder-guide-routes.js';
import { acceptAudioBodies, audioBytes, clientGone } from './audio-body.js';
import { MAX_AUDIO_BYTES, RecorderParams, RecorderUploadQuery } from './schemas.js';
import { openRecordingAudio } from './audio-service.js';
import { deleteRecording, recordWithToken, requireRecorderUser, userHasRecording } from './service.js';

export const MAX_TAKE_SECONDS = 10;

/** `?<notice>=1` on the page after a form's redirect: what the page confirms. */
const PAGE_NOTICES = ['deleted', 'saved', 'guide_saved', 'guide_approved', 'guide_withdrawn'] as const;

/** The page records in the browser (microphone, blob: playback of the take) and uploads to us. */
const withPageHeaders = (reply: FastifyReply, https: boolean, framedBy: readonly string[] = []) =>
  applyPageSecurity(reply.header('cache-control', 'no-store').header('x-robots-tag', 'noindex, nofollow'), {
    // Only the LMS whose course launched the person here may show the page in its frame.
    framedBy,
    csp: [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      "media-src 'self' blob:",
      "connect-src 'self'",
      "form-action 'self'",
      "base-uri 'none'",
    ],
    microphone: true,
    https,
  });

export const recorderRoutes =
  (deps: Deps, options: { perMinute: number }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const https = deps.config.baseUrl.startsWith('https:');
    await registerRateLimit(app, 'recorder', {
      ...deps.rateLimits.options('recorder'),
      max: options.perMinute,
      timeWindow: 60_000,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
          headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
        }),
    });
    acceptAudioBodies(app);

    type RecorderUser = Awaited<ReturnType<typeof requireRecorderUser>>;
    // (Returns nothing: a reply is thenable, so awaiting one would wait for it to be sent.)
    const personPageHeaders = async (reply: FastifyReply, user: RecorderUser): Promise<void> => {
      withPageHeaders(reply, https, await frameOriginsOf(deps, user.collection_id));
    };
    const renderPage = async (
      request: FastifyRequest,
      user: RecorderUser,
      extra: Pick<RecorderPageData, 'notice' | 'detailsError'> & { guide?: RecorderPageData['guide'] },
    ): Promise<string> => {
      const hasRecording = await userHasRecording(deps, user.id);
      const locale = personLocale(user.language, request.headers['accept-language'], user.collection_language);
      const playLink = hasRecording ? (await getPlayLink(deps, user.account_id, user.collection_id, user.id)).play_link : null;
      return recorderPage({
        locale,
        person: {
          displayName: user.display_name,
          preferredName: user.preferred_name,
          pronouns: user.pronouns,
          phoneticSpelling: user.phonetic_spelling,
        },
        collection: {
          name: user.collection_name,
          organisation: user.organisation_name,
          intro: user.intro,
          privacyNote: user.privacy_note,
          deadline: user.deadline,
          // As reminders count it: the deadline's day is over once the UTC date is later.
          deadlinePassed: user.deadline !== null && user.deadline < deps.clock.now().toISOString().slice(0, 10),
          logoUrl: logoUrl(deps.config.baseUrl, user.logo_key),
          brandStyleUrl: brandStyleUrl(user.brand_color),
          selfEdit: Number(user.self_edit) === 1,
        },
        hasRecording,
        guide: extra.guide ?? (await recorderGuideData(deps, user)),
        // The organiser's request for a new take, until the next recording answers it.
        reviewNote: user.recording_status === 'needs_rerecord' ? user.review_note : null,
        playLink,
        signatureHtml: playLink ? signatureSnippet(playLink, user.display_name, locale, escapeHtml) : null,
        uploadUrl: `/r/${user.record_token}/recording`,
        downloadUrl: `/r/${user.record_token}/recording.mp3`,
        deleteUrl: `/r/${user.record_token}/delete-recording`,
        detailsUrl: `/r/${user.record_token}/details`,
        scriptUrl: deps.assets.url('recorder.ts'),
        guideScriptUrl: deps.assets.url('recorder-guide.ts'),
        styleUrl: deps.assets.url('recorder.css'),
        maxSeconds: MAX_TAKE_SECONDS,
        maxUploadBytes: MAX_AUDIO_BYTES,
        notice: extra.notice,
        detailsError: extra.detailsError,
      }).toString();
    };

    app.get('/r/:token', { schema: { hide: true, params: RecorderParams } }, async (request, reply) => {
      withPageHeaders(reply, https).type('text/html; charset=utf-8');
      let user: RecorderUser;
      try {
        user = await requireRecorderUser(deps, request.params.token);
      } catch {
        const locale = negotiateLocale(request.headers['accept-language'], null);
        return reply.code(404).send(recorderNotFoundPage(deps.assets.url('recorder.css'), locale).toString());
      }
      const query = (request.query ?? {}) as Record<string, string | undefined>;
      await personPageHeaders(reply, user);
      return reply.send(
        await renderPage(request, user, { notice: PAGE_NOTICES.find((name) => query[name] === '1') ?? null, detailsError: null }),
      );
    });

    // The person corrects how their name is written, where the collection allows it: the same
    // rules as the API's PATCH of the user, from a plain same-origin form.
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 8 * 1024 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.post('/r/:token/details', { schema: { hide: true, params: RecorderParams } }, async (request, reply) => {
      if (!sameOrigin(request.headers, deps.config.baseUrl)) {
        throw new AppError('forbidden', 'This form can only be sent from its own record page.', { status: 403 });
      }
      const user = await requireRecorderUser(deps, request.params.token);
      if (Number(user.self_edit) !== 1) {
        throw new AppError('forbidden', 'This collection does not let people change their details.', { status: 403 });
      }
      const form = (request.body ?? {}) as Record<string, string | undefined>;
      const text = (name: string) => (form[name] ?? '').trim();
      try {
        const changes = checkBody<UpdateUserBody>(UpdateUserBody, {
          display_name: text('display_name'),
          preferred_name: text('preferred_name') || null,
          pronouns: text('pronouns') || null,
          phonetic_spelling: text('phonetic_spelling') || null,
        });
        await updateUser(deps, user.account_id, user.collection_id, user.id, changes, 'person');
      } catch (error) {
        const field =
          error instanceof AppError ? PERSON_EDITABLE_FIELDS.find((name) => error.param?.startsWith(name)) : undefined;
        if (!field) throw error;
        await personPageHeaders(reply, user);
        return reply
          .code(400)
          .type('text/html; charset=utf-8')
          .send(await renderPage(request, user, { notice: null, detailsError: field }));
      }
      return reply.code(303).header('location', `/r/${user.record_token}?saved=1`).header('cache-control', 'no-store').send();
    });

    registerGuideRoutes(app, deps, {
      sameOrigin: (request) => sameOrigin(request.headers, deps.config.baseUrl),
      renderInvalid: async (request, reply, user, guide) => {
        await personPageHeaders(reply, user);
        return reply
          .type('text/html; charset=utf-8')
          .send(await renderPage(request, user, { notice: null, detailsError: null, guide }));
      },
    });

    app.post(
      '/r/:token/recording',
      {
        bodyLimit: MAX_AUDIO_BYTES,
        config: { bodyTimeoutMs: deps.config.uploadTimeoutMs },
        schema: { hide: true, params: RecorderParams, querystring: RecorderUploadQuery },
        // The token is checked before a byte of the body is read: a stranger's 5 MB is refused at once.
        onRequest: async (request) => {
          await requireRecorderUser(deps, request.params.token);
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return recordWithToken(deps, request.params.token, audioBytes(request.body), request.query.phonetic_spelling, {
          signal: clientGone(reply),
        });
      },
    );

    // The person's own recording, as a file to keep (the record link is the capability).
    app.get('/r/:token/recording.mp3', { schema: { hide: true, params: RecorderParams } }, async (request, reply) => {
      const user = await requireRecorderUser(deps, request.params.token);
      const audio = await openRecordingAudio(deps, user.account_id, user.collection_id, user.id);
      return reply
        .type(audio.mimeType)
        .header('content-length', audio.byteSize)
        .header('content-disposition', 'attachment; filename="my-name.mp3"')
        .header('cache-control', 'private, no-store')
        .header('referrer-policy', 'no-referrer')
        .send(audio.stream);
    });

    // The person deletes their own recording: every copy goes and `recording.deleted` fires. A
    // plain form post from the record page; a cross-site page cannot submit it.
    app.post('/r/:token/delete-recording', { schema: { hide: true, params: RecorderParams } }, async (request, reply) => {
      if (!sameOrigin(request.headers, deps.config.baseUrl)) {
        throw new AppError('forbidden', 'This form can only be sent from its own record page.', { status: 403 });
      }
      const user = await requireRecorderUser(deps, request.params.token);
      await deleteRecording(deps, user.account_id, user.collection_id, user.id);
      return reply.code(303).header('location', `/r/${user.record_token}?deleted=1`).header('cache-control', 'no-store').send();
    });
  };

/** A browser's own form post: `Sec-Fetch-Site: same-origin`, or an `Origin` equal to ours. */
function sameOrigin(headers: Record<string, string | string[] | undefined>, baseUrl: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = headers.origin;
  return typeof origin === 'string' && origin === new URL(baseUrl).origin;
}
