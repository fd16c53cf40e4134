/**
 * Row types of every table, as stored. Timestamps are ISO 8601 UTC text, JSON is text and
 * booleans are 0/1 integers, so the same queries work on SQLite and PostgreSQL.
 * Row types stay inside repos; services and routes see domain objects.
 */
import type { Generated } from 'kysely';
import type { IntentStatus } from '../integrations/payments/provider.js';

export interface AccountsTable {
  id: string;
  email: string;
  created_at: string;
}

export type MemberRole = 'owner' | 'admin' | 'viewer';

/** A person's membership of an organisation (an `accounts` row is the organisation). */
export interface AccountMembersTable {
  account_id: string;
  /** Lower-cased e-mail of the person. */
  email: string;
  role: MemberRole;
  created_at: string;
  /** E-mail of the member who invited this one; null for the owner the account started with. */
  invited_by: string | null;
}

/** An e-mailed invitation to join an organisation (single use, expires). */
export interface AccountInvitationsTable {
  id: string;
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  account_id: string;
  email: string;
  role: MemberRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Who did what to an organisation's data, written when a mutating request succeeds. */
export interface AuditLogTable {
  id: string;
  account_id: string;
  actor_kind: 'member' | 'api_key';
  /** The member's e-mail, or the API key's public prefix. */
  actor: string;
  /** The API key's name; null for members. */
  actor_name: string | null;
  /** e.g. `api_key.created`, `webhook.deleted`. */
  action: string;
  object_id: string | null;
  ip: string;
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
  /** 1 when a recording counts as recorded only once an organiser approved it. */
  review_required: Generated<number>;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  /** `YYYY-MM-DD`: the last day to record; null without a deadline. */
  deadline: string | null;
  /** Default language of the record page, player page and mail (a locale of src/i18n). */
  language: Generated<string>;
  /** 1 when people may correct their display name, preferred name, pronouns and phonetic spelling. */
  self_edit: Generated<number>;
  organisation_name: string | null;
  intro: string | null;
  privacy_note: string | null;
  /** Blob key of the re-encoded PNG logo. */
  logo_key: string | null;
  /** JSON array of whole days before the deadline on which reminders go out. */
  reminder_days: Generated<string>;
  sender_name: string | null;
  reply_to: string | null;
  /** Invitation text template (`{{first_name}}` …); null: the default text of the language. */
  invitation_message: string | null;
}

export interface UsersTable {
  id: string;
  collection_id: string;
  email: string;
  /** Lower-cased e-mail; unique within the collection. */
  email_normalized: string;
  first_name: string;
  /** `''` for people with one name (never null, so event payloads keep a string). */
  last_name: string;
  display_name: string;
  external_id: string | null;
  phonetic_spelling: string | null;
  /** The name the person goes by, when it differs from the first name (0009). */
  preferred_name: string | null;
  pronouns: string | null;
  /** JSON object of custom field values keyed by definition key. */
  custom_fields: string;
  /** Capability token of the recorder page `/r/<token>`. */
  record_token: string;
  /** Kept in step with the `recordings` row and the organiser's review decisions. */
  recording_status: RecordingStatus;
  /** The organiser's note with `needs_rerecord`; null otherwise. */
  review_note: string | null;
  /**
   * Position within the request (batch or import) that created the person, 0 for a single
   * create: rows of one import share `created_at`, so import order is (created_at, this, id).
   */
  import_position: number;
  created_at: string;
  updated_at: string;
  /** The person's latest mail (0015): `queued`, `sent` or `failed`; null before any. */
  mail_status: MailStatus | null;
  /** Why the latest mail failed. */
  mail_error: string | null;
  mail_updated_at: string | null;
  /** When the last invitation was queued (invitations within 24 h are skipped unless resent). */
  invited_at: string | null;
  /** Set by the one-click unsubscribe: no more mail from this collection. */
  unsubscribed_at: string | null;
  /**
   * Who last wrote each field and when (0019): JSON of `FieldSources`
   * (src/features/users/provenance.ts). Imports keep values whose last writer is the person.
   */
  field_sources: string;
}

export type MailStatus = 'queued' | 'sent' | 'failed';
export type MailKind = 'invitation' | 'reminder' | 'rerecord';

/** The outbox of messages to people (0015), claimed with a lease by the message sender. */
export interface MailMessagesTable {
  id: string;
  account_id: string;
  collection_id: string;
  user_id: string;
  kind: MailKind;
  /** The message channel it goes through (0021; src/integrations/channels), `email` so far. */
  channel: string;
  /** `skipped`: the person unsubscribed, or recorded before a reminder left. */
  status: MailStatus | 'skipped';
  /** Unique when set: a reminder's person and scheduled day. */
  dedupe_key: string | null;
  unsubscribe_token: string;
  note: string | null;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  locked_by: string | null;
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export type RecordingStatus = 'none' | 'recorded' | 'approved' | 'needs_rerecord';

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
  /** `retired` after rotation. */
  status: 'active' | 'retired';
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
  created_at: string;
  updated_at: string;
}

/** One 402 instruction: the payment intent it created and the request it is bound to. */
export interface EntityPaymentRequestsTable {
  id: string;
  payment_intent_id: string;
  provider: string;
  /** SHA-256 hex of method, path and canonical JSON body (P2). */
  fingerprint: string;
  amount_minor: number;
  currency: string;
  livemode: number;
  /** The moves between states are in src/features/agent-api/payment-states.ts. */
  state: 'pending' | 'claimed' | 'published' | 'refunding' | 'refunded' | 'canceled';
  attempts: number;
  entity_id: string | null;
  last_error: string | null;
  created_at: string;
  expires_at: string;
  claimed_at: string | null;
  updated_at: string;
}

export interface EntitiesTable {
  id: string;
  slug: string;
  name: string;
  entity_type: string;
  description: string;
  operator: string;
  visibility: string;
  avatar_url: string | null;
  source_url: string | null;
  voice_style: string | null;
  language: string | null;
  intro: string | null;
  /** JSON object as text. */
  external_metadata: string | null;
  agent_id: string | null;
  callback_url: string | null;
  created_via: 'agent_api';
  claim_state: 'unclaimed' | 'claimed';
  verification_state: 'unverified' | 'verified';
  payment_intent_id: string;
  payment_method: string;
  /** SHA-256 hex of the deletion token; the token itself is never stored. */
  deletion_token_hash: string;
  audio_blob_key: string | null;
  audio_byte_size: number;
  audio_duration_ms: number;
  created_at: string;
  deleted_at: string | null;
  /** The dashboard account that claimed the entity (null while unclaimed). */
  claimed_by_account_id: string | null;
  claimed_at: string | null;
  /** The token the owner publishes to prove control of the source_url's domain (0016). */
  domain_token: string | null;
  /** The domain the owner proved control of; only then the profile says "Verified: <domain>". */
  verified_domain: string | null;
  domain_verified_at: string | null;
  /** UTS #39 confusable skeleton of the slug, unique (see 0017_name_skeleton); null only before that migration ran. */
  name_skeleton: string | null;
}

/** Payment intents of the built-in sandbox processor. */
export interface SandboxPaymentIntentsTable {
  id: string;
  client_secret: string;
  amount: number;
  currency: string;
  /** Stripe's PaymentIntent statuses, so the sandbox behaves like the real processor. */
  status: IntentStatus;
  /** JSON object of string values. */
  metadata: string;
  idempotency_key: string | null;
  payment_method_type: string | null;
  amount_refunded: number;
  refund_id: string | null;
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

/** A passwordless sign-in link of the dashboard (single use, short-lived). */
export interface DashboardSignInTokensTable {
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  email: string;
  /** SHA-256 hex of the browser-binding cookie of the browser that asked for the link. */
  browser_hash: string | null;
  /** SHA-256 hex of the client address that asked (rate limit). */
  ip_hash: string;
  /** 1 when the link was mailed; 0 when the address's mail budget was spent (nobody holds the token). */
  mailed: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A signed-in dashboard browser: a person, acting in one organisation. */
export interface DashboardSessionsTable {
  /** SHA-256 hex of the session id in the cookie. */
  id_hash: string;
  /** The signed-in person. */
  email: string;
  /** The organisation the session acts in; null until a person with several picks one. */
  account_id: string | null;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
}

export interface ErasuresTable {
  id: string;
  account_id: string;
  kind: 'collection';
  subject_id: string;
  actor_type: 'api_key' | 'member' | 'retention';
  actor_id: string | null;
  /** JSON object of how many objects went (users, recordings, play_links, audio_files, events, deliveries). */
  counts: string;
  created_at: string;
}

export interface ErasedPlayLinksTable {
  /** SHA-256 (hex) of the erased token: enough to answer 410, nothing to read back. */
  token_hash: string;
  erased_at: string;
}

export interface Database {
  erasures: ErasuresTable;
  erased_play_links: ErasedPlayLinksTable;
  accounts: AccountsTable;
  account_members: AccountMembersTable;
  account_invitations: AccountInvitationsTable;
  audit_log: AuditLogTable;
  api_keys: ApiKeysTable;
  collections: CollectionsTable;
  users: UsersTable;
  mail_messages: MailMessagesTable;
  recordings: RecordingsTable;
  play_links: PlayLinksTable;
  play_link_settings: PlayLinkSettingsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  entity_payment_requests: EntityPaymentRequestsTable;
  entities: EntitiesTable;
  sandbox_payment_intents: SandboxPaymentIntentsTable;
  dashboard_sign_in_tokens: DashboardSignInTokensTable;
  dashboard_sessions: DashboardSessionsTable;
}
