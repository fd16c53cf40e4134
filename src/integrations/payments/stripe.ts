/**
 * Stripe through the official SDK. A PaymentIntent of 100 `aud` per request, confirmable without
 * redirects (agents cannot follow them), with our purpose and request fingerprint in its metadata
 * and idempotency keys on every call that creates something (P16). The API host, port and
 * protocol can be overridden so tests run the real SDK against a local fake.
 */
import Stripe from 'stripe';
import type { Config } from '../../config.js';
import {
  type ChargeTokenInput,
  type CreateIntentInput,
  type IntentStatus,
  isLiveStripeKey,
  type PaymentIntentView,
  type PaymentProvider,
  PaymentProviderError,
} from './provider.js';

/** Shared payment tokens need the preview API version (the one `mppx` pins). */
const STRIPE_PREVIEW_VERSION = '2026-07-29.preview';

function view(intent: Stripe.PaymentIntent): PaymentIntentView {
  const charge = typeof intent.latest_charge === 'object' && intent.latest_charge !== null ? intent.latest_charge : null;
  return {
    id: intent.id,
    status: intent.status as IntentStatus,
    amount: intent.amount,
    amountReceived: intent.amount_received ?? 0,
    currency: intent.currency,
    livemode: intent.livemode,
    clientSecret: intent.client_secret ?? null,
    metadata: { ...(intent.metadata ?? {}) },
    amountRefunded: charge?.amount_refunded ?? 0,
    disputed: charge?.disputed ?? false,
    paymentMethodType: charge?.payment_method_details?.type ?? (intent.status === 'succeeded' ? 'card' : null),
  };
}

function wrap(err: unknown): never {
  if (err instanceof Stripe.errors.StripeError) {
    const unavailable =
      err instanceof Stripe.errors.StripeConnectionError ||
      err instanceof Stripe.errors.StripeAPIError ||
      err instanceof Stripe.errors.StripeRateLimitError;
    throw new PaymentProviderError(`stripe: ${err.message}`, unavailable ? 'unavailable' : 'rejected', { cause: err });
  }
  throw err;
}

export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  readonly livemode: boolean;
  readonly publishableKey: string | null;
  private readonly stripe: Stripe;

  constructor(config: Pick<Config, 'stripeSecretKey' | 'stripePublishableKey' | 'stripeApi'>) {
    if (!config.stripeSecretKey) throw new Error('StripePaymentProvider needs STRIPE_SECRET_KEY');
    this.livemode = isLiveStripeKey(config.stripeSecretKey);
    this.publishableKey = config.stripePublishableKey;
    this.stripe = new Stripe(config.stripeSecretKey, {
      maxNetworkRetries: 2,
      timeout: 15_000,
      telemetry: false,
      ...(config.stripeApi ?? {}),
    });
  }

  async createIntent(input: CreateIntentInput): Promise<PaymentIntentView> {
    try {
      const intent = await this.stripe.paymentIntents.create(
        {
          amount: input.amountMinor,
          currency: input.currency,
          description: input.description,
          metadata: input.metadata,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        },
        { idempotencyKey: input.idempotencyKey },
      );
      return view(intent);
    } catch (err) {
      wrap(err);
    }
  }

  /**
   * The MPP `stripe` method: a PaymentIntent created and confirmed from the agent's shared
   * payment token in one call, as Stripe's machine-payments guide does it. The token field is not
   * in the SDK's types yet (SPTs are a preview API), hence the widened parameters.
   */
  async chargeSharedToken(input: ChargeTokenInput): Promise<PaymentIntentView> {
    const params = {
      amount: input.amountMinor,
      currency: input.currency,
      description: input.description,
      metadata: input.metadata,
      confirm: true,
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
      shared_payment_granted_token: input.token,
      expand: ['latest_charge'],
    } as Stripe.PaymentIntentCreateParams;
    try {
      return view(
        await this.stripe.paymentIntents.create(params, {
          idempotencyKey: input.idempotencyKey,
          apiVersion: STRIPE_PREVIEW_VERSION,
        }),
      );
    } catch (err) {
      wrap(err);
    }
  }

  async retrieveIntent(id: string): Promise<PaymentIntentView | null> {
    try {
      return view(await this.stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] }));
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError && err.statusCode === 404) return null;
      wrap(err);
    }
  }

  async cancelIntent(id: string): Promise<PaymentIntentView> {
    try {
      return view(await this.stripe.paymentIntents.cancel(id, {}, { idempotencyKey: `cancel:${id}` }));
    } catch (err) {
      // Already succeeded or canceled: report the real state instead.
      if (err instanceof Stripe.errors.StripeInvalidRequestError) {
        const current = await this.retrieveIntent(id);
        if (current) return current;
      }
      wrap(err);
    }
  }

  async refundIntent(id: string, idempotencyKey: string): Promise<{ id: string }> {
    try {
      const refund = await this.stripe.refunds.create(
        { payment_intent: id, reason: 'requested_by_customer', metadata: { purpose: 'entities.generate' } },
        { idempotencyKey },
      );
      return { id: refund.id };
    } catch (err) {
      wrap(err);
    }
  }
}
