/**
 * The public recorder: `GET /r/<token>` (the page) and `POST /r/<token>/recording` (its upload,
 * raw audio body, answering the play-link object or an error envelope). No account: the
 * token is the capability. Rate-limited per client address.
 */
import rateLimit from '@fastify/rate-limit';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { pageSecurityHeaders } from '../../http/security-headers.js';
import { recorderNotFoundPage, recorderPage } from '../../web/views/recorder.js';
import { acceptAudioBodies, audioBytes, clientGone } from './audio-body.js';
import { MAX_AUDIO_BYTES, RecorderParams, RecorderUploadQuery } from './schemas.js';
import { openRecordingAudio } from './audio-service.js';
import { deleteRecording, recordWithToken, requireRecorderUser, userHasRecording } from './service.js';

export const MAX_TAKE_SECONDS = 10;

/** The page records in the browser (microphone, blob: playback of the take) and uploads to us. */
const pageHeaders = (https: boolean) => ({
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  ...pageSecurityHeaders({
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
  }),
});

export const recorderRoutes =
  (deps: Deps, options: { perMinute: number }): FastifyPluginAsyncTypebox =>
  async (app) => {
    const headers = pageHeaders(deps.config.baseUrl.startsWith('https:'));
    await app.register(rateLimit, {
      ...deps.rateLimits.options('recorder'),
      max: options.perMinute,
      timeWindow: 60_000,
      errorResponseBuilder: (_request, context) =>
        new AppError('rate_limited', `Too many requests; retry in ${Math.ceil(context.ttl / 1000)} s.`, {
          headers: { 'retry-after': String(Math.ceil(context.ttl / 1000)) },
        }),
    });
    acceptAudioBodies(app);

    app.get('/r/:token', { schema: { hide: true, params: RecorderParams } }, async (request, reply) => {
      reply.headers(headers).type('text/html; charset=utf-8');
      const styleUrl = deps.assets.url('recorder.css');
      let user: Awaited<ReturnType<typeof requireRecorderUser>>;
      try {
        user = await requireRecorderUser(deps, request.params.token);
      } catch {
        return reply.code(404).send(recorderNotFoundPage(styleUrl).toString());
      }
      return reply.send(
        recorderPage({
          displayName: user.display_name,
          phoneticSpelling: user.phonetic_spelling,
          hasRecording: await userHasRecording(deps, user.id),
          // The organiser's request for a new take, until the next recording answers it.
          reviewNote: user.recording_status === 'needs_rerecord' ? user.review_note : null,
          uploadUrl: `/r/${user.record_token}/recording`,
          downloadUrl: `/r/${user.record_token}/recording.mp3`,
          deleteUrl: `/r/${user.record_token}/delete-recording`,
          scriptUrl: deps.assets.url('recorder.ts'),
          styleUrl,
          maxSeconds: MAX_TAKE_SECONDS,
          maxUploadBytes: MAX_AUDIO_BYTES,
        }).toString(),
      );
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
