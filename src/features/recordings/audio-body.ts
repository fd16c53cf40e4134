/**
 * Raw audio request bodies for one plugin scope: any `audio/…` type (the literal `audio/*` too,
 * which generated clients copy from the document) and `application/octet-stream`, read as a
 * Buffer up to 5 MB. The format is read from the bytes, so the type only says "raw audio".
 * Errors in the scope name the audio limits instead of JSON ones.
 */
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import { sendError, toAppError } from '../../http/error-handler.js';
import { MAX_AUDIO_BYTES } from './schemas.js';

const SEND_AUDIO =
  'Send the raw audio file as the body, with Content-Type application/octet-stream or an audio type (audio/webm, audio/wav, audio/mpeg…).';

export function acceptAudioBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    /^(audio\/(\*|[\w.+-]+)|application\/octet-stream)\s*(;.*)?$/i,
    { parseAs: 'buffer', bodyLimit: MAX_AUDIO_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.setErrorHandler((error, request, reply) => {
    const code = (error as FastifyError).code;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE' || (error as FastifyError).statusCode === 413) {
      return sendError(request, reply, new AppError('audio_too_large', 'The audio file is larger than 5 MB.'));
    }
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
      return sendError(request, reply, new AppError('unsupported_media_type', SEND_AUDIO));
    }
    return sendError(request, reply, toAppError(error as FastifyError));
  });
}

/** The parsed body as audio bytes; anything else (e.g. a JSON body) is the wrong media type. */
export function audioBytes(body: unknown): Buffer {
  if (body === undefined || body === null) return Buffer.alloc(0);
  if (Buffer.isBuffer(body)) return body;
  throw new AppError('unsupported_media_type', SEND_AUDIO);
}

/**
 * Aborted when the client closes the connection before its answer is sent, so an upload still
 * waiting for an audio slot stops waiting (nobody would read the result).
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}
