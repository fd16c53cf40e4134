/**
 * Row types of collections and the people in them: their recordings, play links, mail to them, and
 * the record of what was erased. How values are stored: `../schema.ts`.
 */
import type { Generated } from 'kysely';

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
  /** `#rrggbb` (0029): buttons and accents of the record and player pages; null: the service's colour. */
  brand_color: string | null;
  /** JSON array of whole days before the deadline on which reminders go out. */
  reminder_days: Generated<string>;
  sender_name: string | null;
  reply_to: string | null;
  /** Invitation text template (`{{first_name}}` …); null: the default text of the language. */
  invitation_message: string | null;
  /** The ceremony's line-up (0027): `import`, `display_name`, `last_name` or `custom:<field key>`. */
  lineup_order: Generated<string>;
  /** Reminder text template (0028), like `invitation_message`; null: the default reminder of the language. */
  reminder_message: string | null;
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
  /** When the current recording was played in the dashboard (0026); cleared by a new recording or its deletion. */
  listened_at: string | null;
  /** The member (e-mail) who played it then. */
  listened_by: string | null;
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
  /** The name's language (BCP 47, 0024); null: not given (a guide may suggest one from the script). */
  name_language: string | null;
  /** The given name's own language, when it differs from `name_language`. */
  given_name_language: string | null;
  /** The family name's own language, when it differs from `name_language`. */
  family_name_language: string | null;
  /** The language of the person's mail and record page (0028, a locale of src/i18n); null: the collection's. */
  language: string | null;
  /** Set while the person's SCIM user is deactivated (0030): no record link, no messages. */
  provisioning_suspended_at?: string | null;
}

/** Who last wrote a pronunciation guide's text. */
export type PronunciationSource = 'generated' | 'organiser' | 'person';

/** One pronunciation guide per person (0024; src/features/pronunciation). */
export interface PronunciationsTable {
  user_id: string;
  ipa: string;
  respelling: string;
  /** A common wrong way to say the name, shown to readers. */
  not_like: string | null;
  /** The language the guide was made for (BCP 47). */
  language: string;
  /** 1 when nobody set the language and it was suggested from the name's script. */
  language_suggested: number;
  source: PronunciationSource;
  /** How the generated text was made: `dictionary`, `rules` or `mixed`; `edited` once written by someone. */
  method: string;
  /** The name and languages it was generated from (a changed name regenerates a generated guide). */
  generated_from: string;
  /** When the person approved the computer voice saying it; null: not approved. */
  approved_at: string | null;
  /** Capability token of the approved computer voice's audio (`/pronunciations/<token>.mp3`). */
  audio_token: string | null;
  audio_key: string | null;
  audio_duration_ms: number | null;
  created_at: string;
  updated_at: string;
}

/** A person's name-card code for the stage scanner (0027; src/features/stage). */
export interface StageCodesTable {
  user_id: string;
  collection_id: string;
  /** Random, unique within the collection; what the card's QR code and its printed text carry. */
  code: string;
  created_at: string;
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
