/**
 * What every /v1 operation has in common, added to the document in one place so no route can
 * forget it: the key, the error statuses any request can meet, and the headers of every answer.
 */
import { ErrorResponse } from '../schemas.js';

type Operation = Record<string, unknown> & {
  responses?: Record<string, Record<string, unknown>>;
  parameters?: Record<string, unknown>[];
  requestBody?: unknown;
};

const header = (description: string, schema: Record<string, unknown> = { type: 'string' }) => ({ description, schema });

/**
 * The rate-limit fields of draft-ietf-httpapi-ratelimit-headers-11 (src/http/rate-limit-fields.ts),
 * structured fields naming the policy; the same on every API of this service.
 */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    ...header(
      'The limit that counted this request (IETF draft-ietf-httpapi-ratelimit-headers, a structured field): ' +
        "the policy's name, `q` requests per window of `w` seconds.",
    ),
    example: '"v1";q=600;w=60',
  },
  RateLimit: {
    ...header(
      "Where this client stands in that limit (a structured field): the policy's name, `r` requests left, " +
        '`t` seconds until the window ends.',
    ),
    example: '"v1";r=599;t=42',
  },
};
export const RETRY_AFTER_HEADER = header('Seconds to wait before retrying.', { type: 'integer' });

/** `components.headers`: described once, referenced by every response. */
export const SHARED_HEADERS = {
  'X-Request-Id': header('The request id; quote it to support. Also `error.request_id`.'),
  'Cache-Control': header('`no-store`: API answers carry secrets and record links.'),
  ...RATE_LIMIT_HEADERS,
  'Retry-After': RETRY_AFTER_HEADER,
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same key.'),
  Location: header('The URL of the created object.', { type: 'string', format: 'uri' }),
};
const ref = (...names: (keyof typeof SHARED_HEADERS)[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const RESPONSE_HEADERS = ref('X-Request-Id', 'Cache-Control');
// Counted after the key is checked: a 401 is answered before the limit sees the request.
const RATE_LIMIT = ref('RateLimit-Policy', 'RateLimit');
const REPLAYED = ref('Idempotent-Replayed');
const LOCATION = ref('Location');
const RETRY_AFTER = ref('Retry-After');

/** Error statuses and when any /v1 operation can answer them (the route adds its own). */
const COMMON_ERRORS: Record<string, string> = {
  400: 'Invalid request: `error.code` and `error.param` say what (validation_failed, parameter_invalid, …).',
  401: 'No API key, or an invalid or revoked one.',
  404: 'No such object in your account (objects of other accounts are 404 too).',
  429: 'Too many requests for this key: wait `Retry-After` seconds.',
  500: 'Something failed on our side; retry later with the same `Idempotency-Key`.',
};
const BODY_ERRORS: Record<string, string> = {
  408: 'The request body did not arrive in time.',
  413: 'The request body is too large.',
  415: 'Unsupported `Content-Type` for this operation.',
};
const POST_ERRORS: Record<string, string> = {
  409: 'Conflict: the `Idempotency-Key` was used with another request, or that request is still in progress.',
};

export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any unique string up to 255 characters (a UUID). A retry with the same key and body within 24 h gets the ' +
    'stored answer (with `Idempotent-Replayed: true`) instead of acting twice.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ErrorResponse } } });

/** Adds the shared statuses, headers and the Idempotency-Key parameter to one /v1 operation. */
export function applyV1Conventions(method: string, operation: Operation): void {
  operation.security ??= [{ apiKey: [] }];
  const responses = (operation.responses ??= {});
  const errors = {
    ...COMMON_ERRORS,
    ...(operation.requestBody ? BODY_ERRORS : {}),
    ...(method === 'post' ? POST_ERRORS : {}),
  };
  for (const [status, description] of Object.entries(errors)) {
    responses[status] ??= errorResponse(description);
  }
  for (const [status, response] of Object.entries(responses)) {
    const success = status.startsWith('2');
    response.headers = {
      ...RESPONSE_HEADERS,
      ...(status === '401' ? {} : RATE_LIMIT),
      ...(status === '429' || status === '503' ? RETRY_AFTER : {}),
      ...(success && method === 'post' ? REPLAYED : {}),
      ...(status === '201' ? LOCATION : {}),
      ...(response.headers as object | undefined),
    };
    if (!success && response.description === 'Default Response') response.description = errors[status] ?? 'Error.';
  }
  if (method === 'post') {
    const parameters = (operation.parameters ??= []);
    if (!parameters.some((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key')) {
      parameters.push(IDEMPOTENCY_KEY_PARAMETER);
    }
  }
}

/**
 * Every answer of this service carries `X-Request-Id`, public routes and the agent API included.
 * Responses are copied, not changed: features share response objects with their own documents.
 */
export function addRequestIdHeader(operation: Operation): void {
  const responses = operation.responses ?? {};
  for (const [status, response] of Object.entries(responses)) {
    responses[status] = { ...response, headers: { ...ref('X-Request-Id'), ...(response.headers as object | undefined) } };
  }
}
