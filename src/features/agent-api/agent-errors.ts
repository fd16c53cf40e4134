/**
 * The agent API's errors as `AppError`s. Their codes are the spec's `status` values (the code
 * table in src/errors.ts gives each its HTTP status); `details` carries the other fields of the
 * spec's body, which the agent API's error handler (http.ts) renders (never the /v1 envelope).
 */
import type { Challenge } from 'mppx';
import { AppError, type AppErrorOptions } from '../../errors.js';
import type { PaymentInstruction } from './payment-required.js';
import type { ValidationProblems } from './validation.js';

export const AGENT_ERROR_CODES = [
  'invalid_request',
  'unauthorized',
  'payment_required',
  'forbidden',
  'not_found',
  'payment_request_mismatch',
  'payment_in_progress',
  'gone',
  'rate_limited',
  'failed',
  'temporarily_unavailable',
] as const;
export type AgentErrorCode = (typeof AGENT_ERROR_CODES)[number];

export const isAgentError = (error: unknown): error is AppError =>
  error instanceof AppError && (AGENT_ERROR_CODES as readonly string[]).includes(error.code);

const retryAfter = (seconds: number | undefined): Pick<AppErrorOptions, 'headers'> =>
  seconds === undefined ? {} : { headers: { 'retry-after': String(seconds) } };

/** An error whose body is `{status, message}` (plus `Retry-After` and other `headers` when given). */
export const agentError = (
  code: AgentErrorCode,
  message: string,
  options: { retryAfter?: number; headers?: Record<string, string> } = {},
) => {
  const headers = { ...options.headers, ...retryAfter(options.retryAfter).headers };
  return new AppError(code, message, Object.keys(headers).length > 0 ? { headers } : {});
};

/** 400 with the `missing` and `invalid` lists (the body adds `schema_url` and `docs_url`). */
export const invalidRequest = (problems: ValidationProblems, message: string) =>
  new AppError('invalid_request', message, { details: { missing: problems.missing, invalid: problems.invalid } });

/**
 * 402 with the payment instruction to pay before repeating the request, and the same payment as
 * MPP challenges: serialized in `WWW-Authenticate`, and as objects in `details.challenges` for
 * transports that carry them otherwise (MCP).
 */
export const paymentRequired = (
  instruction: PaymentInstruction,
  message: string,
  options: { retryAfter?: number; challenges?: Challenge.Challenge[]; wwwAuthenticate?: string; x402Offer?: string | null } = {},
) => {
  const challenges = options.challenges ?? [];
  const headers = {
    ...retryAfter(options.retryAfter).headers,
    ...(options.wwwAuthenticate ? { 'www-authenticate': options.wwwAuthenticate } : {}),
    // x402 v2 clients read the offer from this header (base64 JSON), when x402 is configured.
    ...(options.x402Offer ? { 'payment-required': options.x402Offer } : {}),
  };
  return new AppError('payment_required', message, { headers, details: { mpp_instruction: instruction, challenges } });
};

/** 503: nothing went wrong for good; `payment_status` says whether the agent has paid. */
export const temporarilyUnavailable = (message: string, retryAfterSeconds: number, paymentStatus: 'paid' | 'unpaid') =>
  new AppError('temporarily_unavailable', message, {
    ...retryAfter(retryAfterSeconds),
    details: { payment_status: paymentStatus },
  });

/** 502: publishing failed for good after payment; the payment is (being) refunded. */
export const publishingFailed = (message: string, transactionId: string, paymentStatus: 'refunded' | 'refund_pending') =>
  new AppError('failed', message, { details: { payment_status: paymentStatus, transaction_id: transactionId } });
