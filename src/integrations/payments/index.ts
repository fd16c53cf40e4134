import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { Clock } from '../../lib/clock.js';
import type { PaymentProvider } from './provider.js';
import { SandboxPaymentProvider } from './sandbox.js';
import { StripePaymentProvider } from './stripe.js';

export type { PaymentIntentView, PaymentProvider } from './provider.js';

/** Stripe when STRIPE_SECRET_KEY is set; otherwise the built-in sandbox. */
export function createPaymentProvider(config: Config, deps: { db: Db; clock: Clock }): PaymentProvider {
  return config.paymentProvider === 'stripe' ? new StripePaymentProvider(config) : new SandboxPaymentProvider(deps);
}
