/**
 * Row types of every table, as stored. Timestamps are ISO 8601 UTC text, JSON is text and
 * booleans are 0/1 integers, so the same queries work on SQLite and PostgreSQL.
 * Row types stay inside repos; services and routes see domain objects.
 */
import type { Generated } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** Public lookup part of the key (`vn_` + first 12 characters of the secret). */
  prefix: string;
  /** SHA-256 hex of the whole key. */
  key_hash: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface CollectionsTable {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  /** JSON array of custom field definitions. */
  custom_fields: string;
  member_count: Generated<number>;
  recorded_count: Generated<number>;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface UsersTable {
  id: string;
  collection_id: string;
  email: string;
  /** Lower-cased e-mail; unique within the collection. */
  email_normalized: string;
  first_name: string;
  last_name: string;
  display_name: string;
  external_id: string | null;
  phonetic_spelling: string | null;
  /** JSON object of custom field values keyed by definition key. */
  custom_fields: string;
  /** Capability token of the recorder page `/r/<token>`. */
  record_token: string;
  created_at: string;
  updated_at: string;
}

export interface RecordingsTable {
  /** One current recording per user. */
  user_id: string;
  blob_key: string;
  mime_type: string;
  byte_size: number;
  duration_ms: number;
  recorded_at: string;
}

export interface PlayLinksTable {
  token: string;
  user_id: string;
  /** `active`, or `retired` after rotation. */
  status: string;
  play_count: Generated<number>;
  created_at: string;
  retired_at: string | null;
}

/** Settings of a collection's public play-link pages (not part of the spec's Collection object). */
export interface PlayLinkSettingsTable {
  collection_id: string;
  /** 1 when search engines may index the player pages; 0 (default) sends `noindex`. */
  allow_indexing: number;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  /** SHA-256 of method, path and body; a different request with the same key is a conflict. */
  request_hash: string;
  /** Null while the first request is still running. */
  response_status: number | null;
  response_body: string | null;
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

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  collections: CollectionsTable;
  users: UsersTable;
  recordings: RecordingsTable;
  play_links: PlayLinksTable;
  play_link_settings: PlayLinkSettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
}
