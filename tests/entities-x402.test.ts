/**
 * Paying with x402 v2 beside MPP: the `PAYMENT-REQUIRED` offer of a 402 when x402 is configured
 * (and none without), the official x402 client (`@x402/fetch` with `@x402/evm`) paying end to end
 * against a local facilitator (tests/helpers/x402-facilitator.ts), and the payment properties of
 * docs/entities.md on this path: request binding (P2), a forged offer (P3), single settlement and
 * identical replay (P6, P7), facilitator down (nothing charged or published), failed publication.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import type { SpeechEngine, SpeechRequest } from '../src/speech/synthesizer.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { FakeSpeech } from './helpers/fake-speech.js';
import { entityApps, generate, validBody } from './helpers/entities.js';
import { type LocalFacilitator, startFacilitator } from './helpers/x402-facilitator.js';

const NETWORK = 'eip155:84532';
const ASSET = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const RATE = '650000'; // 0.65 USDC (6 decimals) per 1.00 AUD

const apps = entityApps();
let facilitator: LocalFacilitator;
let t: TestApp;
const x402Env = () => ({
  X402_NETWORK: NETWORK,
  X402_ASSET: ASSET,
  X402_PAY_TO: PAY_TO,
  X402_FACILITATOR_URL: facilitator.url,
  X402_AUD_RATE: RATE,
});
beforeAll(async () => {
  facilitator = await startFacilitator();
  t = await apps.app({ env: x402Env() });
});

/** Fails every speech call while `failing` is true. */
class FailingSpeech implements SpeechEngine {
  failing = true;
  private readonly real = new FakeSpeech();
  async synthesize(request: SpeechRequest) {
    if (this.failing) throw new Error('speech engine crashed');
    return this.real.synthesize(request);
  }
  phonemize(request: { text: string }) {
    return this.real.phonemize(request);
  }
  async close() {}
}
afterAll(async () => {
  await apps.closeAll();
  await facilitator.close();
});

type Decoded = { transaction: string; accepted: { amount: string } } & Record<string, unknown>;
const decode = (value: unknown) => JSON.parse(Buffer.from(String(value), 'base64').toString('utf8')) as Decoded;
const entities = async (app: TestApp) => (await app.deps.db.kysely.selectFrom('entities').select('id').execute()).length;

/** `fetch` answered by the app in-process; the signatures the x402 client sends are kept in `sent`. */
function appFetch(app: TestApp, sent: string[] = []): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const signature = request.headers.get('payment-signature');
    if (signature) sent.push(signature);
    const res = await app.app.inject({
      method: request.method as 'POST',
      url: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers),
      payload: await request.text(),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers.set(name, String(value));
    return new Response(res.statusCode === 304 ? null : res.body, { status: res.statusCode, headers });
  };
}

/** An agent's wallet with the official client: pays any 402 that offers x402. */
function payingFetch(app: TestApp, sent: string[] = []) {
  const client = new x402Client().register(NETWORK, new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
  return wrapFetchWithPayment(appFetch(app, sent), client);
}

const post = (f: typeof fetch, body: unknown, app: TestApp = t) =>
  f(`${app.config.siteUrl}/api/entities/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('x402 v2 beside MPP', () => {
  it('offers x402 in PAYMENT-REQUIRED next to the MPP challenge: exact scheme, the configured terms, the AUD price at the rate', async () => {
    const unpaid = await generate(t, validBody());
    expect(unpaid.statusCode).toBe(402);
    expect(String(unpaid.headers['www-authenticate'])).toMatch(/^Payment /);
    const offer = decode(unpaid.headers['payment-required']);
    expect(offer).toMatchObject({
      x402Version: 2,
      resource: { url: `${t.config.siteUrl}/api/entities/generate` },
      accepts: [
        {
          scheme: 'exact',
          network: NETWORK,
          asset: ASSET,
          amount: RATE,
          payTo: PAY_TO,
          maxTimeoutSeconds: 300,
          extra: { name: 'USDC', version: '2' },
        },
      ],
    });
    // The spec's body is unchanged.
    expect(Object.keys(unpaid.json())).toEqual(['status', 'message', 'mpp_instruction']);
  });

  it('publishes with the official x402 client, settles once through the facilitator and answers PAYMENT-RESPONSE', async () => {
    const before = facilitator.settlements.length;
    const res = await post(payingFetch(t), validBody());
    expect(res.status).toBe(200);
    const published = (await res.json()) as { status: string; receipt: { method: string } };
    expect(published).toMatchObject({ status: 'published', receipt: { method: 'x402' } });
    const settlement = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
    expect(settlement).toMatchObject({ success: true, network: NETWORK });
    expect(facilitator.settlements.length).toBe(before + 1);
    expect(settlement.transaction).toBe(facilitator.settlements.at(-1)?.transaction);
    // What the operator would need to send it back by hand (`cli x402 refunds`).
    const stored = await t.deps.db.kysely
      .selectFrom('x402_settlements')
      .selectAll()
      .where('transaction', '=', settlement.transaction)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ amount: RATE, asset: ASSET, pay_to: PAY_TO, network: NETWORK, refund_transaction: null });
  });

  it('an identical retry with the same PAYMENT-SIGNATURE replays the 200 without settling or publishing again; on another body it is refused', async () => {
    const sent: string[] = [];
    const body = validBody();
    expect((await post(payingFetch(t, sent), body)).status).toBe(200);
    const [signature] = sent;
    const settled = facilitator.settlements.length;
    const count = await entities(t);

    const again = await generate(t, body, { 'payment-signature': signature as string });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(decode(again.headers['payment-response']).transaction).toBe(facilitator.settlements.at(-1)?.transaction);

    const other = await generate(t, validBody(), { 'payment-signature': signature as string });
    expect(other.statusCode).toBe(409);
    expect(other.json().status).toBe('payment_request_mismatch');
    expect(facilitator.settlements.length).toBe(settled);
    expect(await entities(t)).toBe(count);
  });

  it('refuses a signature made for another request body before anything is verified (P2)', async () => {
    const sent: string[] = [];
    // A wallet that signs the offer for body A but never gets to send it: the agent then sends it with body B.
    const stop: typeof fetch = async (input, init) => {
      const request = new Request(input, init);
      if (request.headers.get('payment-signature')) {
        sent.push(request.headers.get('payment-signature') as string);
        return new Response('{}', { status: 500 });
      }
      return appFetch(t)(request);
    };
    const client = new x402Client().register(NETWORK, new ExactEvmScheme(privateKeyToAccount(generatePrivateKey())));
    await post(wrapFetchWithPayment(stop, client), validBody());
    const verified = facilitator.verifyCalls;
    const res = await generate(t, validBody(), { 'payment-signature': sent[0] as string });
    expect(res.statusCode).toBe(409);
    expect(res.json().status).toBe('payment_request_mismatch');
    expect(facilitator.verifyCalls).toBe(verified);
  });

  it('answers a forged offer (another amount) with a fresh 402, not a payment', async () => {
    const sent: string[] = [];
    const body = validBody();
    expect((await post(payingFetch(t, sent), body)).status).toBe(200);
    const payload = decode(sent[0]);
    payload.accepted.amount = '1';
    const forged = Buffer.from(JSON.stringify(payload)).toString('base64');
    const res = await generate(t, validBody(), { 'payment-signature': forged });
    expect(res.statusCode).toBe(402);
    expect(res.json().message).toMatch(/did not make/);
  });

  it('facilitator down: a clear 503, nothing charged or published; the same request succeeds once it is back', async () => {
    const sent: string[] = [];
    const body = validBody();
    const count = await entities(t);
    const settled = facilitator.settlements.length;
    facilitator.down = true;
    const res = await post(payingFetch(t, sent), body);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ status: 'temporarily_unavailable', payment_status: 'unpaid' });
    expect(res.headers.get('retry-after')).toBe('10');
    expect(await entities(t)).toBe(count);
    expect(facilitator.settlements.length).toBe(settled);

    facilitator.down = false;
    const retried = await generate(t, body, { 'payment-signature': sent[0] as string });
    expect(retried.statusCode).toBe(200);
    expect(facilitator.settlements.length).toBe(settled + 1);
  });

  it('lists x402 beside MPP in x-payment-info, the discovery document and the MCP server card', async () => {
    const openapi = (await t.app.inject({ url: '/openapi.json' })).json();
    const offers = openapi.paths['/api/entities/generate'].post['x-payment-info'].offers as { method: string }[];
    expect(offers.map((offer) => offer.method)).toEqual(['sandbox', 'x402']);
    const discovery = (await t.app.inject({ url: '/.well-known/service-agent-services.json' })).json();
    expect(JSON.stringify(discovery)).toContain('"challenge_header":"PAYMENT-REQUIRED"');
    const card = (await t.app.inject({ url: '/.well-known/mcp/server-card.json' })).json();
    expect(card.payment_methods.map((method: { protocol: string }) => method.protocol)).toEqual(['mpp', 'x402']);
  });
});

describe('x402 secrets', () => {
  it('PAYMENT-SIGNATURE never reaches the logs (P12)', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => void lines.push(line) });
    logger.info(
      { req: { headers: { 'payment-signature': 'eyJzZWNyZXQi' } }, headers: { 'payment-signature': 'eyJzZWNyZXQi' } },
      'x',
    );
    expect(lines.join('')).not.toContain('eyJzZWNyZXQi');
  });
});

describe('without x402 settings', () => {
  it('offers no x402: no PAYMENT-REQUIRED header, no x402 offer in discovery, a PAYMENT-SIGNATURE answered like an unpaid request', async () => {
    const plain = await apps.app();
    const unpaid = await generate(plain, validBody());
    expect(unpaid.statusCode).toBe(402);
    expect(unpaid.headers['payment-required']).toBeUndefined();
    const offers = (await plain.app.inject({ url: '/openapi.json' })).json().paths['/api/entities/generate'].post[
      'x-payment-info'
    ].offers as { method: string }[];
    expect(offers.map((offer) => offer.method)).toEqual(['sandbox']);
    const card = (await plain.app.inject({ url: '/.well-known/mcp/server-card.json' })).json();
    expect(card.payment_methods.map((method: { protocol: string }) => method.protocol)).toEqual(['mpp']);
    const signed = await generate(plain, validBody(), {
      'payment-signature': Buffer.from('{"x402Version":2}').toString('base64'),
    });
    expect(signed.statusCode).toBe(402);
  });
});

describe('x402 when publishing fails', () => {
  it('settles nothing while publishing fails; the same signature publishes (and settles once) when it works again', async () => {
    const speech = new FailingSpeech();
    const failing = await apps.app({ env: x402Env(), overrides: { speech } });
    const sent: string[] = [];
    const body = validBody();
    const settled = facilitator.settlements.length;
    const res = await post(payingFetch(failing, sent), body, failing);
    expect(res.status).toBe(503);
    expect(await entities(failing)).toBe(0);
    expect(facilitator.settlements.length).toBe(settled);

    speech.failing = false;
    const retried = await generate(failing, body, { 'payment-signature': sent[0] as string });
    expect(retried.statusCode).toBe(200);
    expect(facilitator.settlements.length).toBe(settled + 1);
  });
});

describe('x402 settings', () => {
  const base = { NODE_ENV: 'test', DATA_DIR: '/nonexistent', BASE_URL: 'http://localhost:3000' };
  const full = {
    X402_NETWORK: NETWORK,
    X402_ASSET: ASSET,
    X402_PAY_TO: PAY_TO,
    X402_FACILITATOR_URL: 'https://x402.example',
    X402_AUD_RATE: RATE,
  };

  it('are all or nothing, with an explicit rate', () => {
    expect(loadConfig(base).x402).toBeNull();
    expect(loadConfig({ ...base, ...full }).x402).toMatchObject({ network: NETWORK, audRate: 650000n });
    expect(() => loadConfig({ ...base, X402_NETWORK: NETWORK })).toThrow(/x402 needs all of .*missing X402_ASSET/);
    expect(() => loadConfig({ ...base, ...full, X402_AUD_RATE: '0.65' })).toThrow(/X402_AUD_RATE must be a whole number/);
  });

  it('refuse a test network in production unless X402_ALLOW_TEST_NETWORK=true', () => {
    const production = {
      ...base,
      ...full,
      NODE_ENV: 'production',
      BASE_URL: 'https://voicename.example',
      PAYMENTS_SANDBOX: 'true',
      MAIL_TRANSPORT: 'log',
    };
    expect(() => loadConfig(production)).toThrow(/X402_NETWORK=eip155:84532 is a test network/);
    expect(loadConfig({ ...production, X402_ALLOW_TEST_NETWORK: 'true' }).x402?.network).toBe(NETWORK);
    expect(loadConfig({ ...production, X402_NETWORK: 'eip155:8453' }).x402?.network).toBe('eip155:8453');
  });
});

describe('docs/entities.md, x402', () => {
  const entitiesGuide = fs.readFileSync('docs/entities.md', 'utf8');

  it("pins the x402 client packages and viem this checkout's lock installs", () => {
    const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version: string }> };
    const pinned = /^npm install @x402\/fetch@(\S+) @x402\/evm@(\S+) viem@(\S+)$/m.exec(entitiesGuide);
    expect(pinned?.slice(1)).toEqual(
      ['@x402/fetch', '@x402/evm', 'viem'].map((name) => lock.packages[`node_modules/${name}`]?.version),
    );
  });

  it('the documented example (examples/x402-pay.ts) publishes as written', async () => {
    const server = await startTestServer({
      env: { ...x402Env(), ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' },
      overrides: { speech: new FakeSpeech() },
    });
    apps.track(server);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'examples/x402-pay.ts', server.url, `Orbit Courier ${Date.now()}`],
      { timeout: 60_000, env: { ...process.env, X402_PRIVATE_KEY: generatePrivateKey() } },
    );
    expect(stdout).toMatch(/^200 \{/);
    expect(stdout).toContain('"status": "published"');
    expect(stdout).toMatch(/settlement \{\n {2}success: true/);
  }, 90_000);
});
