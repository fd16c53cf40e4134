/**
 * Row types of the agent entity API: entities, their paid requests, and the sandbox payment
 * processor's intents. How values are stored: `../schema.ts`.
 */
import type { IntentStatus } from '../../integrations/payments/provider.js';

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
  /** The name's pronunciation guide (0025): IPA and English-reader respelling; null when there is none. */
  guide_ipa: string | null;
  guide_respelling: string | null;
  /** The language (BCP 47) the guide was made in, and whether it was suggested from the script (1) rather than given (0). */
  guide_language: string | null;
  guide_language_suggested: number;
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

/** The facilitator's settlement of an x402 payment request (migrations 0039, 0041). */
export interface X402SettlementsTable {
  payment_request_id: string;
  network: string;
  payer: string;
  /** Atomic token units. */
  amount: string;
  transaction: string;
  settled_at: string;
  /** The token and the wallet it was paid to; null for settlements recorded before 0041. */
  asset: string | null;
  pay_to: string | null;
  /** The operator's transfer back to the payer (`cli x402 refunded`), and when it was recorded; null until then. */
  refund_transaction: string | null;
  refunded_at: string | null;
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
