/**
 * Row types of background work and what goes out: the job queue, events, webhooks and their
 * deliveries, and idempotent replays. How values are stored: `../schema.ts`.
 */
import type { Generated } from 'kysely';

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** SHA-256 of method, path and body; a different request with the same key is a conflict. */
  request_hash: string;
  /** Null while the first request is still running. */
  response_status: number | null;
  response_body: string | null;
  /** The `Location` header of a stored 201, replayed with it. */
  response_location: string | null;
  created_at: string;
  expires_at: string;
}

export interface JobsTable {
  id: string;
  name: string;
  /** JSON payload. */
  payload: string;
  run_at: string;
  attempts: Generated<number>;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  /** Set when the job ran out of attempts; the row is kept for inspection. */
  failed_at: string | null;
  created_at: string;
}

/** Something that happened to an account's data; webhooks deliver these. */
export interface EventsTable {
  id: string;
  account_id: string;
  /** e.g. `recording.completed`, `recording.deleted`. */
  type: string;
  /** JSON of the event's `data` object, exactly as delivered. */
  data: string;
  created_at: string;
}

export interface WebhooksTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of subscribed event kinds (`*` = all). */
  events: string;
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: string | null;
  consecutive_failures: Generated<number>;
  /** `whsec_…`; needed in clear to sign. */
  secret: string;
  /** The secret before the last rotation; still signs until `previous_secret_expires_at`. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  /** The destination's format: `standard`, `slack` or `teams` (migration 0038). */
  kind: 'standard' | 'slack' | 'teams';
  /** `full` (the spec's body) or `thin` (ids and the object's API URL; standard only). */
  payload_format: 'full' | 'thin';
  /** Client certificate (PEM) presented for mutual TLS; null: none (migration 0040). */
  tls_client_certificate: string | null;
  /** Its private key, sealed with the secret box (`lib/secret-box.ts`); never in clear. */
  tls_client_key_sealed: string | null;
  created_at: string;
  updated_at: string;
}

/** One event (or test ping) to one webhook: the outbox row, the queue entry and the log. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  /** The exact body bytes sent on every attempt (serialised once). */
  payload: string;
  trigger: 'event' | 'test';
  /** `failed`: automatic attempts exhausted. */
  status: 'pending' | 'succeeded' | 'failed';
  /** Automatic attempts made; drives the retry schedule. */
  attempt_count: Generated<number>;
  next_attempt_at: string | null;
  locked_by: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  /** 1-based, over all attempts of the delivery (automatic and manual). */
  number: number;
  /** `manual`: a redelivery. */
  trigger: 'automatic' | 'manual' | 'test';
  attempted_at: string;
  response_status: number | null;
  duration_ms: number;
  error_code: string | null;
  error_message: string | null;
  /** First 2 KB of the response body. */
  response_body: string;
}
