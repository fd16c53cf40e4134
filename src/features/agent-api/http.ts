/**
 * The error answers of the site's agent-facing routes (the agent API and the public profile pages
 * under SITE_URL): the spec's bodies, never the /v1 envelope. Services throw agent API
 * `AppError`s (agent-errors.ts); Fastify's own failures (bad JSON, wrong type, too large) are
 * mapped to the same 400. Both route plugins install it, so every answer under SITE_URL looks alike.
 */
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { AppError } from '../../errors.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { invalidRequest, isAgentError } from './agent-errors.js';
import { agentApiUrls } from './urls.js';
import { summarizeReceived } from './validation.js';

export const GENERATE_BODY_LIMIT = 65_536;

/**
 * The spec's body of an agent API error: `status` is the code, and the fields each kind carries
 * come from `details`, in the order the spec shows them.
 */
function agentErrorBody(deps: Deps, error: AppError): Record<string, unknown> {
  const details = error.details ?? {};
  switch (error.code) {
    case 'invalid_request':
      return {
        status: error.code,
        missing: details.missing,
        invalid: details.invalid,
        message: error.message,
        schema_url: agentApiUrls(deps).schema,
        docs_url: agentApiUrls(deps).docs,
      };
    case 'payment_required':
      return { status: error.code, message: error.message, mpp_instruction: details.mpp_instruction };
    case 'temporarily_unavailable':
      return { status: error.code, payment_status: details.payment_status, message: error.message };
    case 'failed':
      return {
        status: error.code,
        payment_status: details.payment_status,
        message: error.message,
        transaction_id: details.transaction_id,
      };
    default:
      return { status: error.code, message: error.message };
  }
}

/** Parser-level failures (bad JSON, wrong type, too large) as the spec's 400, or null. */
function parserError(error: FastifyError, request: FastifyRequest): AppError | null {
  const problem = parserProblem(error, request);
  if (!problem) return null;
  return invalidRequest(
    { missing: [], invalid: [{ field: 'body', received: problem.received, allowed: problem.allowed }] },
    problem.message,
  );
}

function parserProblem(
  error: FastifyError,
  request: FastifyRequest,
): { received: unknown; allowed: string[]; message: string } | null {
  if (error instanceof AppError && error.code === 'invalid_json') {
    return {
      received: 'JSON nested too deeply',
      allowed: [`a JSON object nested at most ${MAX_JSON_DEPTH} levels deep`],
      message: `The request is invalid: ${error.message.charAt(0).toLowerCase()}${error.message.slice(1)}`,
    };
  }
  switch (error.code) {
    case 'request_timeout': // src/http/body-timeout.ts: a body trickled in too slowly
      return { received: 'an incomplete body', allowed: ['the whole JSON body, sent promptly'], message: error.message };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        received: summarizeReceived(request.headers['content-type'] ?? ''),
        allowed: ['application/json'],
        message: 'The request is invalid: send the body as JSON with Content-Type: application/json.',
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        received: `more than ${GENERATE_BODY_LIMIT} bytes`,
        allowed: [`a JSON object of at most ${GENERATE_BODY_LIMIT} bytes`],
        message: `The request is invalid: the body is larger than ${GENERATE_BODY_LIMIT} bytes.`,
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return {
        received: '',
        allowed: ['a JSON object'],
        message: 'The request is invalid: the body is empty; send a JSON object.',
      };
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.statusCode === 400) {
    return {
      received: 'malformed JSON',
      allowed: ['a JSON object'],
      message: 'The request is invalid: the body is not valid JSON.',
    };
  }
  if (error.statusCode === 413 || error.statusCode === 415) {
    return {
      received: 'unreadable body',
      allowed: ['a JSON object'],
      message: 'The request is invalid: the body cannot be read.',
    };
  }
  return null;
}

/**
 * Installs the agent API's error handler on `app` (an encapsulated plugin). Cache-Control goes
 * before the error's own headers (Retry-After), as on every answer.
 */
export function answerAgentErrors(app: FastifyInstance, deps: Deps): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = isAgentError(error) ? error : parserError(error, request);
    if (known) {
      return reply
        .code(known.status)
        .header('cache-control', 'no-store')
        .headers(known.headers)
        .send(agentErrorBody(deps, known));
    }
    request.log.error({ err: error }, 'entity request failed');
    // Not a temporary failure (those are 503 with Retry-After): repeating the same request would
    // most likely fail the same way, so the answer names the request id instead of inviting a retry.
    return reply
      .code(500)
      .header('cache-control', 'no-store')
      .send({
        status: 'error',
        message:
          `Internal error (request id ${request.id}); it has been logged. Repeating this request unchanged is unlikely ` +
          'to help: contact support with the request id. A paid request is never charged twice.',
      });
  });
}
