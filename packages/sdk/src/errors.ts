/**
 * Typed errors. Every failed API call throws a `VoicenameError` built from the API's envelope
 * `{"error": {type, code, message, param?, request_id}}`; the subclasses let callers catch the
 * cases they handle differently (`instanceof NotFoundError`), and `code` names the exact reason.
 * A request that got no answer at all (network failure, timeout) throws `VoicenameConnectionError`.
 */
import { parseRateLimits, type RateLimitInfo } from './rate-limit.js';

/** One problem of a batch or import, as the API lists them in `error.errors` / `error.warnings`. */
export type ErrorDetail = Record<string, unknown>;

interface ErrorEnvelope {
  error?: {
    type?: unknown;
    code?: unknown;
    message?: unknown;
    param?: unknown;
    request_id?: unknown;
    errors?: unknown;
    warnings?: unknown;
  };
}

export interface VoicenameErrorFields {
  status: number;
  type: string;
  code: string;
  message: string;
  param?: string | undefined;
  requestId?: string | undefined;
  errors?: ErrorDetail[] | undefined;
  warnings?: ErrorDetail[] | undefined;
  headers: Headers;
}

export class VoicenameError extends Error {
  /** The HTTP status. */
  readonly status: number;
  /** The broad class: `invalid_request_error`, `authentication_error`, `idempotency_error`, `rate_limit_error`, `api_error`. */
  readonly type: string;
  /** The exact reason, e.g. `resource_missing`, `parameter_invalid`, `audio_too_short`. */
  readonly code: string;
  /** The field at fault, when there is one. */
  readonly param: string | undefined;
  /** The `request_id` to quote to support (also the `X-Request-Id` header). */
  readonly requestId: string | undefined;
  /** Every problem of a batch or import (`{index, field, code, message}` or `{row, column, code, message}`). */
  readonly errors: ErrorDetail[] | undefined;
  readonly warnings: ErrorDetail[] | undefined;
  readonly headers: Headers;

  constructor(fields: VoicenameErrorFields) {
    super(fields.message);
    this.name = new.target.name;
    this.status = fields.status;
    this.type = fields.type;
    this.code = fields.code;
    this.param = fields.param;
    this.requestId = fields.requestId;
    this.errors = fields.errors;
    this.warnings = fields.warnings;
    this.headers = fields.headers;
  }
}

/** 401: the API key is missing, revoked or wrong. */
export class AuthenticationError extends VoicenameError {}
/** 404: no such object (also another account's). */
export class NotFoundError extends VoicenameError {}
/** 409: a conflict (e-mail taken, Idempotency-Key reused with another request…). */
export class ConflictError extends VoicenameError {}
/** 400, 413, 415, 422: the request or its file cannot be used as it is; `code` and `param` say why. */
export class InvalidRequestError extends VoicenameError {}
/** 429 after the client's own retries ran out. */
export class RateLimitError extends VoicenameError {
  /** Seconds the API asked to wait (`Retry-After`), when it said. */
  get retryAfterSeconds(): number | undefined {
    const value = Number(this.headers.get('retry-after'));
    return Number.isFinite(value) && value >= 0 ? value : undefined;
  }

  /** The limit that refused the request (`RateLimit` and `RateLimit-Policy`), when the API sent them. */
  get rateLimit(): RateLimitInfo | undefined {
    return parseRateLimits(this.headers)[0];
  }
}

/** No answer: the connection failed or the request timed out (after the client's retries). */
export class VoicenameConnectionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VoicenameConnectionError';
  }
}

const classFor = (status: number): typeof VoicenameError => {
  if (status === 401) return AuthenticationError;
  if (status === 404) return NotFoundError;
  if (status === 409) return ConflictError;
  if (status === 429) return RateLimitError;
  if (status === 400 || status === 413 || status === 415 || status === 422) return InvalidRequestError;
  return VoicenameError;
};

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const list = (value: unknown): ErrorDetail[] | undefined => (Array.isArray(value) ? (value as ErrorDetail[]) : undefined);

/** The error for a non-2xx answer; `body` is what openapi-fetch parsed (JSON, or the text when it was not JSON). */
export function errorFromResponse(response: Response, body: unknown): VoicenameError {
  const envelope = typeof body === 'object' && body !== null ? (body as ErrorEnvelope).error : undefined;
  const ErrorClass = classFor(response.status);
  return new ErrorClass({
    status: response.status,
    type: text(envelope?.type) ?? (response.status >= 500 ? 'api_error' : 'invalid_request_error'),
    code: text(envelope?.code) ?? `http_${response.status}`,
    message:
      text(envelope?.message) ??
      (typeof body === 'string' && body ? body : `HTTP ${response.status} ${response.statusText}`.trim()),
    param: text(envelope?.param),
    requestId: text(envelope?.request_id) ?? response.headers.get('x-request-id') ?? undefined,
    errors: list(envelope?.errors),
    warnings: list(envelope?.warnings),
    headers: response.headers,
  });
}
