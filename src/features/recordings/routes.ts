import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { accountOf } from '../../http/auth.js';
import { ErrorResponse } from '../../http/schemas.js';
import { acceptAudioBodies, audioBytes, clientGone } from './audio-body.js';
import { AudioBody, DeletedRecording, MAX_AUDIO_BYTES, PlayLink, UserParams } from './schemas.js';
import { deleteRecording, recordForUser } from './service.js';

export const recordingsRoutes =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    acceptAudioBodies(app);
    const tags = ['Recordings'];
    const url = '/collections/:collection_id/users/:user_id/recording';

    app.put(
      url,
      {
        bodyLimit: MAX_AUDIO_BYTES,
        config: { bodyTimeoutMs: deps.config.uploadTimeoutMs, audit: 'recording.uploaded' },
        schema: {
          tags,
          operationId: 'recordings.upload',
          summary: "Upload or replace a user's recording",
          description:
            'The body is the raw audio (WebM, Ogg, WAV, MP3 or M4A; at most 5 MB; the format is detected from the bytes). ' +
            'It is trimmed, loudness-normalised and stored as MP3. Answers the play-link object. Refusals: ' +
            '`audio_empty` 400, `audio_too_large` 413, `audio_unsupported_format` 415, `audio_corrupt`, `audio_too_short`, ' +
            '`audio_too_long`, `audio_silent`, `audio_clipped`, `audio_unsupported_sample_rate`, `audio_too_many_channels`, `audio_too_complex` 422. ' +
            'Uploads sent in parallel wait their turn for processing, shared fairly between accounts; `rate_limited` 429 with `Retry-After` ' +
            'when this account already has `AUDIO_QUEUE_PER_ACCOUNT` uploads (default 50) being processed, `audio_busy` 503 with `Retry-After` ' +
            "only when the server's whole waiting line is full; `audio_processing_timeout` 503 when processing took too long.",
          params: UserParams,
          body: AudioBody as never,
          response: {
            200: PlayLink,
            400: ErrorResponse,
            401: ErrorResponse,
            404: ErrorResponse,
            413: ErrorResponse,
            415: ErrorResponse,
            422: ErrorResponse,
            503: ErrorResponse,
          },
        },
        // The body is bytes; schema validation of a Buffer would only get in the way.
        validatorCompiler: () => () => true,
      },
      async (request, reply) =>
        recordForUser(deps, accountOf(request), request.params.collection_id, request.params.user_id, audioBytes(request.body), {
          signal: clientGone(reply),
        }),
    );

    app.delete(
      url,
      {
        config: { audit: 'recording.deleted' },
        schema: {
          tags,
          operationId: 'recordings.delete',
          summary: "Delete a user's recording",
          description: 'Removes the recording and its audio file. Emits `recording.deleted`.',
          params: UserParams,
          response: { 200: DeletedRecording, 401: ErrorResponse, 404: ErrorResponse },
        },
      },
      async (request) => deleteRecording(deps, accountOf(request), request.params.collection_id, request.params.user_id),
    );
  };
