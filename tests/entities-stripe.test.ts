/**
 * The `stripe` payment provider through the official `stripe` SDK, against a stateful local fake
 * of the PaymentIntents API (tests/helpers/fake-stripe.ts), and the paid flow end to end with it.
 */
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepPaymentRequests } from '../src/features/agent-api/sweep.js';
import { StripePaymentProvider } from '../src/integrations/payments/stripe.js';
import { ManualClock } from '../src/lib/clock.js';
import type { SpeechEngine } from '../src/speech/synthesizer.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { generate, paymentHeader, validBody } from './helpers/entities.js';
import { FakeStripe } from './helpers/fake-stripe.js';

let fake: FakeStripe;
const apps: TestApp[] = [];
beforeAll(async () => {
  fake = await new FakeStripe().start();
});
afterAll(async () => {
  for (const t of apps) await t.close();
  await fake.stop();
});

const provider = () =>
  new StripePaymentProvider({
    stripeSecretKey: fake.secretKey,
    stripePublishableKey: 'pk_test_fake_0123456789',
    stripeApi: { host: '127.0.0.1', port: fake.port, protocol: 'http' },
  });
/** The agent's side: the SDK with only the publishable key and the client secret. */
const agentStripe = () =>
  new Stripe('pk_test_fake_0123456789', { host: '127.0.0.1', port: fake.port, protocol: 'http', maxNetworkRetries: 0 });

async function stripeApp(options: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp({
    ...options,
    env: fake.env({ ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000', ...options.env }),
    overrides: { ...fakeSpeech(), ...options.overrides },
  });
  apps.push(t);
  return t;
}
const countEntities = async (t: TestApp) =>
  Number(
    (
      await t.deps.db.kysely
        .selectFrom('entities')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('StripePaymentProvider through the official SDK', () => {
  it('creates a 100 aud intent without redirects, with metadata and an idempotency key; a repeated call replays it', async () => {
    const p = provider();
    const input = {
      amountMinor: 100,
      currency: 'aud',
      description: 'd',
      metadata: { purpose: 'entities.generate' },
      idempotencyKey: 'pi_create:abc',
    };
    const created = await p.createIntent(input);
    expect(created).toMatchObject({ status: 'requires_payment_method', amount: 100, currency: 'aud', livemode: false });
    expect(created.clientSecret).toMatch(/^pi_.+_secret_/);
    const stored = fake.intents.get(created.id);
    expect(stored?.automatic_payment_methods).toEqual({ enabled: true, allow_redirects: 'never' });
    expect(stored?.metadata).toEqual({ purpose: 'entities.generate' });
    const again = await p.createIntent(input);
    expect(again.id).toBe(created.id);
    expect(fake.count({ method: 'POST', path: /^\/v1\/payment_intents$/, replayed: true })).toBeGreaterThanOrEqual(1);
    await expect(p.createIntent({ ...input, description: 'different' })).rejects.toThrow(/stripe/);
  });

  it('confirm with pm_card_visa succeeds (agent side, publishable key), pm_card_chargeDeclined is declined', async () => {
    const p = provider();
    const ok = await p.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'd',
      metadata: {},
      idempotencyKey: 'k-visa',
    });
    const confirmed = await agentStripe().paymentIntents.confirm(ok.id, {
      client_secret: ok.clientSecret,
      payment_method: 'pm_card_visa',
    } as never);
    expect(confirmed.status).toBe('succeeded');
    const retrieved = await p.retrieveIntent(ok.id);
    expect(retrieved).toMatchObject({
      status: 'succeeded',
      amountReceived: 100,
      amountRefunded: 0,
      disputed: false,
      paymentMethodType: 'card',
    });

    const bad = await p.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'd',
      metadata: {},
      idempotencyKey: 'k-declined',
    });
    await expect(
      agentStripe().paymentIntents.confirm(bad.id, {
        client_secret: bad.clientSecret,
        payment_method: 'pm_card_chargeDeclined',
      } as never),
    ).rejects.toMatchObject({ type: 'StripeCardError', code: 'card_declined' });
    expect((await p.retrieveIntent(bad.id))?.status).toBe('requires_payment_method');
    // A wrong client secret finds nothing.
    await expect(
      agentStripe().paymentIntents.confirm(bad.id, { client_secret: 'nope', payment_method: 'pm_card_visa' } as never),
    ).rejects.toThrow();
  });

  it('cancels open intents, reports the real state of paid ones, refunds once per key, and returns null for unknown ids', async () => {
    const p = provider();
    const open = await p.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'd',
      metadata: {},
      idempotencyKey: 'k-cancel',
    });
    expect((await p.cancelIntent(open.id)).status).toBe('canceled');
    const paid = await p.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'd',
      metadata: {},
      idempotencyKey: 'k-refund',
    });
    fake.pay(paid.id);
    expect((await p.cancelIntent(paid.id)).status).toBe('succeeded');
    const refund = await p.refundIntent(paid.id, `refund:${paid.id}`);
    const again = await p.refundIntent(paid.id, `refund:${paid.id}`);
    expect(again.id).toBe(refund.id);
    expect([...fake.refunds.values()].filter((r) => r.payment_intent === paid.id)).toHaveLength(1);
    expect((await p.retrieveIntent(paid.id))?.amountRefunded).toBe(100);
    expect(await p.retrieveIntent('pi_doesnotexist000000')).toBeNull();
  });
});

describe('paid flow with the stripe provider', () => {
  it('402 with the publishable key → the agent pays with the SDK → 200 with a card receipt', async () => {
    const t = await stripeApp();
    const body = validBody();
    const unpaid = await generate(t, body);
    expect(unpaid.statusCode).toBe(402);
    const instruction = unpaid.json().mpp_instruction;
    expect(instruction).toMatchObject({
      amount: '1.00',
      currency: 'AUD',
      processor: 'stripe',
      publishable_key: 'pk_test_fake_0123456789',
    });
    expect(instruction.confirm_url).toBeUndefined();
    const intent = fake.intents.get(instruction.reference);
    expect(intent).toMatchObject({ amount: 100, currency: 'aud', client_secret: instruction.address });
    expect(intent?.metadata).toMatchObject({
      purpose: 'entities.generate',
      request_fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await agentStripe().paymentIntents.confirm(instruction.reference, {
      client_secret: instruction.address,
      payment_method: 'pm_card_visa',
    } as never);
    const paid = await generate(t, body, paymentHeader(instruction.reference));
    expect(paid.statusCode).toBe(200);
    expect(paid.json().receipt).toMatchObject({
      amount: '1.00',
      currency: 'AUD',
      method: 'card',
      transaction_id: instruction.reference,
    });
    const discovery = (await t.app.inject({ url: '/.well-known/service-agent-services.json' })).json();
    expect(discovery.services[0].payment).toMatchObject({ processor: 'stripe', publishable_key: 'pk_test_fake_0123456789' });
    expect(
      (await t.app.inject({ method: 'POST', url: `/api/sandbox/payment-intents/${instruction.reference}/confirm`, payload: {} }))
        .statusCode,
    ).toBe(404);
  });

  it('P4 (stripe): a live-mode intent, or a changed amount or currency at the processor, is not accepted', async () => {
    const t = await stripeApp();
    for (const patch of [{ livemode: true }, { amount: 50, amount_received: 50 }, { currency: 'usd' }]) {
      const body = validBody();
      const instruction = (await generate(t, body)).json().mpp_instruction;
      fake.pay(instruction.reference);
      Object.assign(fake.intents.get(instruction.reference) as object, patch);
      const res = await generate(t, body, paymentHeader(instruction.reference));
      expect(res.statusCode).toBe(402);
      expect(res.json().mpp_instruction.reference).not.toBe(instruction.reference);
    }
    expect(await countEntities(t)).toBe(0);
  });

  it('P5 (stripe): a disputed or refunded charge does not count', async () => {
    const t = await stripeApp();
    const body = validBody();
    const instruction = (await generate(t, body)).json().mpp_instruction;
    fake.pay(instruction.reference);
    fake.dispute(instruction.reference);
    expect((await generate(t, body, paymentHeader(instruction.reference))).statusCode).toBe(402);
    expect(await countEntities(t)).toBe(0);
  });

  it('P6 (stripe): 20 concurrent paid retries with a slow processor → one entity, one receipt, no refund', async () => {
    const t = await stripeApp();
    const body = validBody();
    const instruction = (await generate(t, body)).json().mpp_instruction;
    fake.pay(instruction.reference);
    fake.retrieveDelayMs = 30;
    const refundsBefore = fake.refunds.size;
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => generate(t, body, paymentHeader(instruction.reference))),
      );
      expect(responses.every((r) => r.statusCode === 200 || r.statusCode === 409)).toBe(true);
      const receipts = new Set(responses.filter((r) => r.statusCode === 200).map((r) => JSON.stringify(r.json().receipt)));
      expect(receipts.size).toBe(1);
    } finally {
      fake.retrieveDelayMs = 0;
    }
    expect(await countEntities(t)).toBe(1);
    expect(fake.refunds.size).toBe(refundsBefore);
  });

  it('P9 + P16 (stripe): a permanent failure is refunded exactly once, with the key refund:<pi>; creates carry pi_create keys', async () => {
    const broken: SpeechEngine = {
      synthesize: async () => {
        throw new Error('engine down');
      },
      phonemize: async () => {
        throw new Error('engine down');
      },
      close: async () => undefined,
    };
    const t = await stripeApp({ overrides: { speech: broken } });
    const body = validBody();
    const instruction = (await generate(t, body)).json().mpp_instruction;
    fake.pay(instruction.reference);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await generate(t, body, paymentHeader(instruction.reference))).statusCode);
    expect(statuses).toEqual([503, 503, 502, 402]);
    await sweepPaymentRequests(t.deps);
    const refundCalls = fake.requests.filter(
      (r) => r.path === '/v1/refunds' && r.params.payment_intent === instruction.reference,
    );
    expect(refundCalls.length).toBeGreaterThanOrEqual(1);
    expect(refundCalls.every((r) => r.idempotencyKey === `refund:${instruction.reference}`)).toBe(true);
    expect([...fake.refunds.values()].filter((r) => r.payment_intent === instruction.reference)).toHaveLength(1);
    const creates = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
    expect(creates.length).toBeGreaterThan(0);
    expect(creates.every((r) => /^(pi_create:[0-9a-f-]{36}|k-.+|pi_create:abc)$/.test(r.idempotencyKey ?? ''))).toBe(true);
  });

  it('P9 (stripe): a refund that failed at the processor is resumed by the sweeper, and still happens exactly once', async () => {
    const broken: SpeechEngine = {
      synthesize: async () => {
        throw new Error('engine down');
      },
      phonemize: async () => {
        throw new Error('engine down');
      },
      close: async () => undefined,
    };
    const t = await stripeApp({ overrides: { speech: broken } });
    const body = validBody();
    const instruction = (await generate(t, body)).json().mpp_instruction;
    fake.pay(instruction.reference);
    fake.failNextRefunds = 10;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await generate(t, body, paymentHeader(instruction.reference)));
    expect(answers[2]?.statusCode).toBe(502);
    expect(answers[2]?.json()).toMatchObject({ status: 'failed', payment_status: 'refund_pending' });
    const row = () =>
      t.deps.db.kysely
        .selectFrom('entity_payment_requests')
        .selectAll()
        .where('payment_intent_id', '=', instruction.reference)
        .executeTakeFirstOrThrow();
    expect((await row()).state).toBe('refunding');
    const refundsOf = () => [...fake.refunds.values()].filter((r) => r.payment_intent === instruction.reference).length;
    expect(refundsOf()).toBe(0);
    fake.failNextRefunds = 0;
    const report = await sweepPaymentRequests(t.deps);
    expect(report.refunded).toBe(1);
    await sweepPaymentRequests(t.deps);
    expect((await row()).state).toBe('refunded');
    expect(refundsOf()).toBe(1);
  }, 30_000);

  it('P10 (stripe): an expired unpaid intent is cancelled at the processor', async () => {
    const clock = new ManualClock(new Date());
    const t = await stripeApp({ clock });
    const instruction = (await generate(t, validBody())).json().mpp_instruction;
    clock.advance(1801 * 1000);
    await sweepPaymentRequests(t.deps);
    expect(fake.intents.get(instruction.reference)?.status).toBe('canceled');
    await expect(
      agentStripe().paymentIntents.confirm(instruction.reference, {
        client_secret: instruction.address,
        payment_method: 'pm_card_visa',
      } as never),
    ).rejects.toThrow();
  });
});
