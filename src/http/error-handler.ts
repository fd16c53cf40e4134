/**
 * The one error handler. Every error leaves as `{"error": {type, code, message, param?,
 * request_id}}` with the status from the code table in `errors.ts`. Unknown errors are logged
 * and answered with a generic 500 that reveals nothing internal.
 */
import type { ErrorObject } from 'ajv';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody } from '../errors.js';
import { isScimPath, scimErrorBody } from '../features/scim/errors.js';
import { validationError } from './validation.js';

export function toAppError(error: FastifyError | Error): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validationContext?: string };
  if (fastifyError.validation)
    return validationError(fastifyError.validation as ErrorObject[], fastifyError.validationContext ?? 'body');
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Unsupported Content-Type; send application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The request body is empty; send a JSON object.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('validation_failed', 'Content-Length does not match the body.');
  }
  if (error instanceof SyntaxError || fastifyError.statusCode === 400) {
    return new AppError('invalid_json', 'The request body is not valid JSON.');
  }
  if (fastifyError.statusCode === 413) return new AppError('payload_too_large', 'The request body is too large.');
  if (fastifyError.statusCode === 415) return new AppError('unsupported_media_type', 'Unsupported Content-Type.');
  return new AppError(
    'internal_error',
    'Something went wrong on our side. Try again; if it persists, contact support with the request id.',
    {
      cause: error,
    },
  );
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  if (error.status >= 500) request.log.error({ err: error.cause ?? error }, 'request failed');
  // SCIM clients read only SCIM's own error body (RFC 7644 §3.12): the one exception to the envelope.
  if (isScimPath(request.url)) {
    return reply.code(error.status).headers(error.headers).type('application/scim+json').send(scimErrorBody(error));
  }
  return reply.code(error.status).headers(error.headers).send(errorBody(error, request.id));
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => sendError(request, reply, toAppError(error as FastifyError)));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
