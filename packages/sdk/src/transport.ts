/**
 * The `fetch` that openapi-fetch calls for every request: adds the API key and an
 * `Idempotency-Key` on POST, bounds each attempt with a timeout, and retries what is safe to retry.
 *
 * What is retried, and why it is safe:
 * - 429 (rate limited), any method: the API refuses before running the handler, so nothing happened.
 * - 409 with `Retry-After` (`idempotency_request_in_progress`): the first attempt of this very
 *   POST is still running; the retry gets its stored answer.
 * - 5xx, network errors and timeouts: only for GET/HEAD/PUT/DELETE/OPTIONS (idempotent) and POST
 *   (its `Idempotency-Key`, the same on every attempt, makes the API answer a repeat with the first
 *   result). PATCH is not retried then: it may have been applied, and PATCH is not idempotent in general.
 * Waits follow `Retry-After` (seconds or an HTTP date) when given, else exponential backoff with jitter.
 */
import { VoicenameConnectionError } from './errors.js';

export type FetchFunction = (input: Request, init?: RequestInit) => Promise<Response>;

export interface TransportOptions {
  apiKey: string;
  fetch: FetchFunction;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Per attempt, until the answer's headers arrive, in milliseconds. */
  timeoutMs: number;
  userAgent?: string;
}

const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the error reaches the caller, who can decide. */
const MAX_RETRY_AFTER_MS = 60_000;

/** `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter: attempt 1 waits 250–500 ms, 2 waits 500–1000 ms, … capped at 8 s. */
export function backoffMs(attempt: number, random = Math.random): number {
  const ceiling = Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

function retryableStatus(method: string, response: Response): boolean {
  if (response.status === 429) return true;
  if (response.status === 409) return method === 'POST' && response.headers.has('retry-after');
  return response.status >= 500 && response.status !== 501 && retryableFailure(method);
}

const retryableFailure = (method: string): boolean => IDEMPOTENT_METHODS.has(method) || method === 'POST';

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The request with the API key and, on POST, an Idempotency-Key (the caller's if they set one). */
function authorised(request: Request, options: TransportOptions): Request {
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${options.apiKey}`);
  if (request.method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', crypto.randomUUID());
  if (options.userAgent && !headers.has('user-agent')) headers.set('user-agent', options.userAgent);
  return new Request(request, { headers });
}

export function createTransport(options: TransportOptions): (request: Request) => Promise<Response> {
  return async (original) => {
    const request = authorised(original, options);
    // The caller's own signal (from openapi-fetch's init) stops everything, waits included.
    const callerSignal = request.signal;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.maxRetries;
      // The time limit covers waiting for the answer's headers, not reading its body: a long
      // export download must not be cut off.
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new DOMException('timed out', 'TimeoutError')), options.timeoutMs);
      const signal = AbortSignal.any([callerSignal, timeout.signal]);
      let response: Response;
      try {
        // Every attempt sends a copy, so the body can be sent again.
        response = await options.fetch(request.clone(), { signal });
      } catch (error) {
        if (callerSignal.aborted) throw error;
        if (last || !retryableFailure(request.method)) {
          const reason =
            error instanceof Error && error.name === 'TimeoutError' ? `timed out after ${options.timeoutMs} ms` : 'failed';
          throw new VoicenameConnectionError(`${request.method} ${new URL(request.url).pathname} ${reason}.`, { cause: error });
        }
        await sleep(backoffMs(attempt + 1), callerSignal);
        continue;
      } finally {
        clearTimeout(timer);
      }
      if (last || !retryableStatus(request.method, response)) return response;
      const wait = retryAfterMs(response.headers) ?? backoffMs(attempt + 1);
      if (wait > MAX_RETRY_AFTER_MS) return response;
      // Free the connection: this answer is not read.
      await response.body?.cancel().catch(() => {});
      await sleep(wait, callerSignal);
    }
  };
}
