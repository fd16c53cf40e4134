/**
 * The MPP `stripe` method: an agent pays with a Stripe shared payment token (SPT); the server
 * creates and confirms a 100 `aud` PaymentIntent from it through the official SDK, against the
 * local fake of Stripe (which grants and enforces SPTs like Stripe's test helper). Driven by the
 * real `mppx` client, and checked by the `mppx validate` command line end to end, payment included.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Challenge, Credential, Receipt } from 'mppx';
import { Mppx, stripe } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, startTestServer, type TestApp } from './helpers/app.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { generate, validBody } from './helpers/entities.js';
import { FakeStripe } from './helpers/fake-stripe.js';

const run = promisify(execFile);
let fake: FakeStripe;
const apps: TestApp[] = [];
beforeAll(async () => {
  fake = await new FakeStripe().start();
});
afterAll(async () => {
  for (const t of apps) await t.close();
  await fake.stop();
});

const settings = () => fake.env({ ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' });
const countEntities = async (t: TestApp) => (await t.deps.db.kysely.selectFrom('entities').select('id').execute()).length;
const sptCharges = () => fake.requests.filter((r) => r.path === '/v1/payment_intents' && r.params.shared_payment_granted_token);
const grantUrl = () => `http://127.0.0.1:${fake.port}/v1/test_helpers/shared_payment/granted_tokens`;

/** The agent's wallet: asks Stripe (here, the fake) for a token granted to the seller, as mppx's own CLI does. */
async function createToken(input: { amount: string; currency: string; expiresAt: number; paymentMethod?: string }) {
  const res = await fetch(grantUrl(), {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}` },
    body: new URLSearchParams({
      payment_method: input.paymentMethod ?? 'pm_card_visa',
      'usage_limits[currency]': input.currency,
      'usage_limits[max_amount]': input.amount,
      'usage_limits[expires_at]': String(input.expiresAt),
    }),
  });
  return ((await res.json()) as { id: string }).id;
}

describe('the stripe method (shared payment tokens)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: settings(), overrides: fakeSpeech() });
    apps.push(t);
  });

  it('offers a stripe challenge: 100 aud in cents, the network id and card payments', async () => {
    const unpaid = await generate(t, validBody());
    expect(unpaid.statusCode).toBe(402);
    const [challenge, ...others] = Challenge.deserializeList(String(unpaid.headers['www-authenticate']));
    expect(others).toEqual([]);
    expect(challenge).toMatchObject({
      method: 'stripe',
      intent: 'charge',
      request: {
        amount: '100',
        currency: 'aud',
        decimals: 2,
        methodDetails: { networkId: 'internal', paymentMethodTypes: ['card'] },
      },
    });
  });

  it('charges the token once through the SDK (idempotency key, preview API), publishes, and replays without a second charge', async () => {
    const body = validBody();
    const challenge = Challenge.deserialize(String((await generate(t, body)).headers['www-authenticate']));
    const token = fake.grantToken();
    const authorization = Credential.serialize({ challenge, payload: { spt: token.id } });
    const paid = await generate(t, body, { authorization });
    expect(paid.statusCode).toBe(200);
    const receipt = Receipt.deserialize(String(paid.headers['payment-receipt']));
    expect(receipt).toMatchObject({ method: 'stripe', reference: paid.json().receipt.transaction_id, status: 'success' });
    const intent = fake.intents.get(receipt.reference);
    expect(intent).toMatchObject({
      amount: 100,
      currency: 'aud',
      status: 'succeeded',
      metadata: { purpose: 'entities.generate' },
    });
    const charges = sptCharges().filter((r) => r.params.shared_payment_granted_token === token.id);
    expect(charges).toHaveLength(1);
    expect(charges[0]?.idempotencyKey).toMatch(/^spt:spt_[0-9a-f]{40}$/);
    const again = await generate(t, body, { authorization });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['payment-receipt']).toBe(paid.headers['payment-receipt']);
    expect(sptCharges().filter((r) => r.params.shared_payment_granted_token === token.id)).toHaveLength(1);
  });

  it('10 concurrent requests with one token: one charge, one entity', async () => {
    const body = validBody();
    const challenge = Challenge.deserialize(String((await generate(t, body)).headers['www-authenticate']));
    const token = fake.grantToken();
    const authorization = Credential.serialize({ challenge, payload: { spt: token.id } });
    const before = await countEntities(t);
    const answers = await Promise.all(Array.from({ length: 10 }, () => generate(t, body, { authorization })));
    expect(answers.every((res) => res.statusCode === 200 || res.statusCode === 409)).toBe(true);
    expect(await countEntities(t)).toBe(before + 1);
    expect(
      new Set([...fake.intents.values()].filter((i) => i.metadata.request_fingerprint).map((i) => i.id)).size,
    ).toBeGreaterThan(0);
    const charged = sptCharges().filter((r) => r.params.shared_payment_granted_token === token.id && !r.replayed);
    expect(charged.length).toBe(1);
  });

  it('a declined card, a token over its limit, or another body is never published', async () => {
    const body = validBody();
    const challenge = Challenge.deserialize(String((await generate(t, body)).headers['www-authenticate']));
    const before = await countEntities(t);
    const declined = await generate(t, body, {
      authorization: Credential.serialize({
        challenge,
        payload: { spt: fake.grantToken({ paymentMethod: 'pm_card_chargeDeclined' }).id },
      }),
    });
    expect(declined.statusCode).toBe(402);
    expect(declined.json().message).toContain('declined');
    expect(String(declined.headers['www-authenticate'])).toMatch(/^Payment /);
    const tooSmall = await generate(t, body, {
      authorization: Credential.serialize({ challenge, payload: { spt: fake.grantToken({ maxAmount: 50 }).id } }),
    });
    expect(tooSmall.statusCode).toBe(402);
    const token = fake.grantToken();
    const otherBody = await generate(t, validBody(), {
      authorization: Credential.serialize({ challenge, payload: { spt: token.id } }),
    });
    expect(otherBody.statusCode).toBe(409);
    expect(fake.sharedTokens.get(token.id)?.used).toBe(false);
    expect(await countEntities(t)).toBe(before);
  });
});

describe('standard clients against the stripe method', () => {
  let server: TestApp & { url: string };
  beforeAll(async () => {
    server = await startTestServer({ env: settings(), overrides: fakeSpeech() });
    apps.push(server);
  });

  it('the mppx client pays with its own stripe method and publishes', async () => {
    const mppx = Mppx.create({ methods: [stripe({ paymentMethod: 'pm_card_visa', createToken })], polyfill: false });
    const res = await mppx.fetch(`${server.url}/api/entities/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validBody()),
    });
    expect(res.status).toBe(200);
    expect(Receipt.fromResponse(res).method).toBe('stripe');
  });

  it('mppx validate passes: discovery, challenge, error handling and a test-mode payment', async () => {
    const body = JSON.stringify(validBody({ name: `Validate ${Date.now()}` }));
    const { stdout } = await run(
      process.execPath,
      ['node_modules/mppx/dist/bin.js', 'validate', server.url, '--output-json', '--yes', '--body', body],
      {
        env: { ...process.env, MPPX_STRIPE_SECRET_KEY: fake.secretKey, MPPX_STRIPE_SPT_URL: grantUrl(), NO_COLOR: '1' },
        timeout: 60_000,
      },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`mppx validate failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(stdout) as {
      discovery: { found: boolean };
      endpoints: { path: string; payment: { label: string; severity: string }[] }[];
      summary: { failed: number; passed: number };
    };
    expect(result.discovery.found).toBe(true);
    expect(result.summary.failed).toBe(0);
    expect(result.endpoints.map((e) => e.path)).toEqual(['/api/entities/generate']);
    const payment = result.endpoints[0]?.payment ?? [];
    expect(payment).toContainEqual(expect.objectContaining({ label: 'Payment [stripe]: successful', severity: 'pass' }));
  }, 90_000);
});
