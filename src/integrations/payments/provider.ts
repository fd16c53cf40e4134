/**
 * The payment processor behind entity generation, as one small interface. Two implementations:
 * `sandbox` (intents in our own database; the default) and `stripe` (official SDK). Every value
 * the server trusts (status, amount, currency, mode, metadata) is read back through `retrieveIntent`
 * with the server's own credentials, never taken from the client (P4).
 */

export type IntentStatus =
  | 'requires_payment_method'
  | 'requires_confirmation'
  | 'requires_action'
  | 'processing'
  | 'requires_capture'
  | 'canceled'
  | 'succeeded';

export interface PaymentIntentView {
  id: string;
  status: IntentStatus;
  amount: number;
  amountReceived: number;
  currency: string;
  livemode: boolean;
  /** Present for intents the caller may still pay; the processor returns it to the secret-key holder. */
  clientSecret: string | null;
  metadata: Record<string, string>;
  /** From the latest charge: refunded amount and dispute flag (P5). */
  amountRefunded: number;
  disputed: boolean;
  /** e.g. `card`; null when nothing was charged. */
  paymentMethodType: string | null;
}

export interface CreateIntentInput {
  amountMinor: number;
  currency: string;
  description: string;
  metadata: Record<string, string>;
  /** Sent to the processor so a retried call never makes a second intent (P16). */
  idempotencyKey: string;
}

/** A payment made from an agent's Stripe shared payment token (the MPP `stripe` method). */
export interface ChargeTokenInput extends CreateIntentInput {
  /** `spt_…`, granted by the agent's wallet to this seller, limited in amount, currency and time. */
  token: string;
}

export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly code: 'unavailable' | 'rejected',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PaymentProviderError';
  }
}

export interface PaymentProvider {
  readonly name: 'sandbox' | 'stripe';
  /** The mode this server's credentials operate in; intents of the other mode are refused (P4). */
  readonly livemode: boolean;
  /** Published to agents so they can confirm with the client secret (null for the sandbox). */
  readonly publishableKey: string | null;
  createIntent(input: CreateIntentInput): Promise<PaymentIntentView>;
  /** Null when the processor does not know the id. */
  retrieveIntent(id: string): Promise<PaymentIntentView | null>;
  cancelIntent(id: string): Promise<PaymentIntentView>;
  /**
   * Creates and confirms an intent paid with a shared payment token, or null when the processor
   * has no such payments (the sandbox). A declined or unusable token is a `rejected` error.
   */
  chargeSharedToken?(input: ChargeTokenInput): Promise<PaymentIntentView>;
  /** Full refund; the idempotency key makes a repeated call return the same refund (P9, P16). */
  refundIntent(id: string, idempotencyKey: string): Promise<{ id: string }>;
}

/** The shape of payment intent ids we accept from clients (P13). */
export const PAYMENT_INTENT_ID = /^pi_[A-Za-z0-9]{8,64}$/;

/** Whether a Stripe secret (or restricted) key operates in live mode. */
export const isLiveStripeKey = (key: string): boolean => key.startsWith('sk_live_') || key.startsWith('rk_live_');
