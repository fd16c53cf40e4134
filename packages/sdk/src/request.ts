/** What every resource method shares: per-call options, and turning openapi-fetch's result into data or a thrown error. */
import type { Client } from 'openapi-fetch';
import { errorFromResponse } from './errors.js';
import type { paths } from './generated/openapi.js';

export type ApiClient = Client<paths>;

export interface RequestOptions {
  /** For POST: your own key, to make a retry of yours (not only the SDK's) safe. Default: a random UUID per call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

/** The openapi-fetch init fields for the options. */
export function callOptions(options: RequestOptions = {}): { headers: Record<string, string>; signal?: AbortSignal } {
  const headers = { ...options.headers, ...(options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {}) };
  return options.signal ? { headers, signal: options.signal } : { headers };
}

/** Sends a body as it is (bytes, Blob or text) instead of openapi-fetch's default JSON.stringify. */
export const asIs = (body: unknown): BodyInit => body as BodyInit;

/** The answer's data; throws `VoicenameError` (with its subclass) for a non-2xx answer. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw errorFromResponse(response, error);
  return data as T;
}
