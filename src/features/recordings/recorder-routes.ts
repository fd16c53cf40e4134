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
import { recordWithToken, requireRecorderUser, userHasRecording } from './service.js';

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
      "form-action 'none'",
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
  };
