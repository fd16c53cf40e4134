import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { Clock } from '../../lib/clock.js';
import { isLiveStripeKey, type PaymentProvider } from './provider.js';
import { SandboxPaymentProvider } from './sandbox.js';

export type { PaymentProvider } from './provider.js';

/** Stripe when STRIPE_SECRET_KEY is set; otherwise the built-in sandbox. */
export function createPaymentProvider(config: Config, deps: { db: Db; clock: Clock }): PaymentProvider {
  return config.paymentProvider === 'stripe' ? lazyStripeProvider(config) : new SandboxPaymentProvider(deps);
}

/**
 * The Stripe provider, with the Stripe SDK (resident memory: docs/performance.md) loaded at its first
 * call rather than at boot (ARCHITECTURE.md, "Start and stop"). What is known without it (mode,
 * publishable key) is answered at once, as `StripePaymentProvider` answers it.
 */
function lazyStripeProvider(config: Config): PaymentProvider {
  const key = config.stripeSecretKey;
  if (!key) throw new Error('StripePaymentProvider needs STRIPE_SECRET_KEY');
  let provider: Promise<PaymentProvider> | undefined;
  const load = () => (provider ??= import('./stripe.js').then(({ StripePaymentProvider }) => new StripePaymentProvider(config)));
  return {
    name: 'stripe',
    livemode: isLiveStripeKey(key),
    publishableKey: config.stripePublishableKey,
    createIntent: async (input) => (await load()).createIntent(input),
    retrieveIntent: async (id) => (await load()).retrieveIntent(id),
    cancelIntent: async (id) => (await load()).cancelIntent(id),
    chargeSharedToken: async (input) => {
      const stripe = await load();
      if (!stripe.chargeSharedToken) throw new Error('the Stripe provider charges shared payment tokens');
      return stripe.chargeSharedToken(input);
    },
    refundIntent: async (id, idempotencyKey) => (await load()).refundIntent(id, idempotencyKey),
  };
}
