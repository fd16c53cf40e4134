/**
 * Paying through the standard Payment HTTP authentication scheme (MPP, draft-httpauth-payment):
 * the challenge every 402 carries, the real `mppx` client publishing end to end with the shipped
 * sandbox method, and the sixteen payment properties (docs/entities.md) on this path, one test
 * each. The `stripe` method (shared payment tokens) is in entities-mpp-stripe.test.ts.
 */
import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { Challenge, Credential, Receipt } from 'mppx';
import { Mppx } from 'mppx/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepPaymentRequests } from '../src/features/agent-api/sweep.js';
import { ManualClock } from '../src/lib/clock.js';
import { createLogger } from '../src/logger.js';
import { sandbox } from '../src/sdk/mpp-sandbox.js';
import type { SpeechEngine, SpeechRequest } from '../src/speech/synthesizer.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { confirmSandbox, entityApps, generate, paymentHeader, validBody } from './helpers/entities.js';
import { FakeSpeech } from './helpers/fake-speech.js';

const run = promisify(execFile);
const apps = entityApps();
const app = apps.app;
afterAll(apps.closeAll);

const db = (t: TestApp) => t.deps.db.kysely;
const countEntities = async (t: TestApp) => (await db(t).selectFrom('entities').select('id').execute()).length;
const sandboxIntent = (t: TestApp, id: string) =>
  db(t).selectFrom('sandbox_payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

type Instruction = { reference: string; address: string; expires_at: string };
const challengeOf = (res: { headers: Record<string, unknown> }) => Challenge.deserialize(String(res.headers['www-authenticate']));
const credentialFor = (challenge: Challenge.Challenge, reference: string) =>
  Credential.serialize({ challenge, payload: { reference } });

/** 402 → pay the sandbox intent → the standard credential answering the 402's challenge. */
async function paidCredential(t: TestApp, body: Record<string, unknown>, options: { pay?: boolean } = {}) {
  const unpaid = await generate(t, body);
  expect(unpaid.statusCode).toBe(402);
  const instruction = unpaid.json().mpp_instruction as Instruction;
  const challenge = challengeOf(unpaid);
  if (options.pay !== false) expect((await confirmSandbox(t, instruction)).statusCode).toBe(200);
  return { instruction, challenge, authorization: credentialFor(challenge, instruction.reference) };
}
const withCredential = (authorization: string) => ({ authorization });

/** Fails the first `failures` calls, then answers like the fake engine. */
class FlakySpeech implements SpeechEngine {
  private readonly real = new FakeSpeech();
  constructor(private failures: number) {}
  async synthesize(request: SpeechRequest) {
    if (this.failures-- > 0) throw new Error('speech engine crashed');
    return this.real.synthesize(request);
  }
  phonemize(request: { text: string }) {
    return this.real.phonemize(request);
  }
  async close() {}
}

describe('the MPP challenge on every 402', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });

  it('is a Payment challenge mppx reads: the sandbox method, 100 aud, bound by HMAC to this request, under 8 KB', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    expect(unpaid.statusCode).toBe(402);
    // The spec's body is unchanged.
    expect(Object.keys(unpaid.json())).toEqual(['status', 'message', 'mpp_instruction']);
    const header = String(unpaid.headers['www-authenticate']);
    expect(header.startsWith('Payment ')).toBe(true);
    expect(Buffer.byteLength(header)).toBeLessThan(8192);
    const [challenge, ...others] = Challenge.deserializeList(header);
    expect(others).toEqual([]);
    const instruction = unpaid.json().mpp_instruction as Instruction;
    expect(challenge).toMatchObject({
      method: 'sandbox',
      intent: 'charge',
      realm: 'localhost',
      expires: instruction.expires_at,
      request: {
        amount: '100',
        currency: 'aud',
        decimals: 2,
        methodDetails: { reference: instruction.reference, clientSecret: instruction.address },
      },
    });
    expect(Challenge.verify(challenge as Challenge.Challenge, { secretKey: t.deps.agentApi.keys.challengeKey })).toBe(true);
    // Any change to a parameter breaks the id.
    const cheaper = { ...challenge, request: { ...challenge?.request, amount: '1' } } as Challenge.Challenge;
    expect(Challenge.verify(cheaper, { secretKey: t.deps.agentApi.keys.challengeKey })).toBe(false);
  });

  it('is on every 402: "not paid yet" names the same intent, an undecodable credential gets a new one', async () => {
    const body = validBody();
    const { authorization, instruction, challenge } = await paidCredential(t, body, { pay: false });
    const notYet = await generate(t, body, withCredential(authorization));
    expect(notYet.statusCode).toBe(402);
    expect(challengeOf(notYet).request).toMatchObject({ methodDetails: { reference: instruction.reference } });
    const refused = await generate(t, body, { authorization: 'Payment bm90IGEgY3JlZGVudGlhbA' });
    expect(refused.statusCode).toBe(402);
    expect(challengeOf(refused).id).not.toBe(challenge.id);
  });
});

describe('an mppx client pays with the shipped sandbox method', () => {
  let server: TestApp & { url: string };
  beforeAll(async () => {
    server = await startTestServer({
      env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '100000' },
      overrides: { speech: new FakeSpeech() },
    });
    apps.track(server);
  });

  it('publishes end to end over HTTP, with a Payment-Receipt', async () => {
    const mppx = Mppx.create({ methods: [sandbox()], polyfill: false });
    const body = validBody({ name: `Orbit Standard ${Date.now()}` });
    const res = await mppx.fetch(`${server.url}/api/entities/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const published = (await res.json()) as {
      status: string;
      receipt: { transaction_id: string };
      entity: { profile_url: string };
    };
    expect(published.status).toBe('published');
    const receipt = Receipt.fromResponse(res);
    expect(receipt).toMatchObject({ method: 'sandbox', reference: published.receipt.transaction_id, status: 'success' });
    expect(Date.parse(receipt.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    expect((await sandboxIntent(server, receipt.reference)).status).toBe('succeeded');
    expect((await fetch(published.entity.profile_url)).status).toBe(200);
  });

  it('the documented example (examples/mpp-pay.ts) publishes as written', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'examples/mpp-pay.ts', server.url, `Orbit Example ${Date.now()}`],
      { timeout: 60_000 },
    );
    expect(stdout).toMatch(/^200 \{/);
    expect(stdout).toContain('"status": "published"');
    expect(stdout).toMatch(/receipt \{\n {2}method: 'sandbox'/);
  }, 90_000);

  it('the documented example exits non-zero when nothing is published', async () => {
    // A name without a letter or digit is refused (400) before any payment.
    const failed = await run(process.execPath, ['--import', 'tsx', 'examples/mpp-pay.ts', server.url, '!!!'], {
      timeout: 60_000,
    }).then(
      () => null,
      (err: { code?: number; stdout?: string; stderr?: string }) => err,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/^400 \{/);
    expect(failed?.stderr).toContain('not published');
  }, 90_000);

  it('mppx validate passes discovery, the challenge and error handling (it has no payer for sandbox)', async () => {
    const { stdout } = await run(
      process.execPath,
      ['node_modules/mppx/dist/bin.js', 'validate', server.url, '--output-json', '--body', JSON.stringify(validBody())],
      { timeout: 60_000 },
    ).catch((err: { stdout?: string; stderr?: string }) => {
      throw new Error(`mppx validate failed:\n${err.stdout ?? ''}\n${err.stderr ?? ''}`);
    });
    const result = JSON.parse(stdout) as {
      discovery: { found: boolean };
      endpoints: { challenge: { label: string; severity: string }[] }[];
      summary: { failed: number };
    };
    expect(result.discovery.found).toBe(true);
    expect(result.summary.failed).toBe(0);
    expect(result.endpoints[0]?.challenge).toContainEqual(
      expect.objectContaining({ label: 'Challenge parseable', detail: 'sandbox/charge', severity: 'pass' }),
    );
  }, 90_000);

  it('a declined card stops at the client with the sandbox error, and nothing is published', async () => {
    const before = await countEntities(server);
    const mppx = Mppx.create({ methods: [sandbox({ paymentMethod: 'pm_card_chargeDeclined' })], polyfill: false });
    await expect(
      mppx.fetch(`${server.url}/api/entities/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(validBody()),
      }),
    ).rejects.toThrow(/sandbox: payment failed \(402\)/);
    expect(await countEntities(server)).toBe(before);
  });
});

describe('payment properties on the standard credential path', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });

  it('P1: one paid challenge publishes at most one entity', async () => {
    const body = validBody();
    const { authorization } = await paidCredential(t, body);
    const before = await countEntities(t);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await generate(t, body, withCredential(authorization)));
    expect(answers.map((res) => res.statusCode)).toEqual([200, 200, 200, 200]);
    expect(new Set(answers.map((res) => res.json().entity.profile_url)).size).toBe(1);
    expect(await countEntities(t)).toBe(before + 1);
  });

  it('P2: the challenge is bound to the request that created it; another body gets 409, a tampered challenge a fresh 402', async () => {
    const bodyA = validBody();
    const { authorization, challenge, instruction } = await paidCredential(t, bodyA);
    const mismatch = await generate(t, validBody(), withCredential(authorization));
    expect(mismatch.statusCode).toBe(409);
    expect(mismatch.json().status).toBe('payment_request_mismatch');
    // Pointing the challenge at another payment request breaks its HMAC id.
    const moved = Credential.serialize({
      challenge: { ...challenge, opaque: Buffer.from('{"request":"another"}').toString('base64url') },
      payload: { reference: instruction.reference },
    });
    expect((await generate(t, bodyA, withCredential(moved))).statusCode).toBe(402);
    expect((await generate(t, bodyA, withCredential(authorization))).statusCode).toBe(200);
  });

  it('P3: only challenges this service issued are accepted', async () => {
    const body = validBody();
    const { challenge, instruction } = await paidCredential(t, body);
    const { id: _id, ...parameters } = challenge;
    const forged = Challenge.from({ ...parameters, secretKey: 'a-key-of-somebody-else-0123456789' });
    const res = await generate(t, body, withCredential(credentialFor(forged, instruction.reference)));
    expect(res.statusCode).toBe(402);
    expect(res.json().message).toContain('did not issue');
    const otherRealm = Challenge.from({ ...parameters, realm: 'evil.example', secretKey: t.deps.agentApi.keys.challengeKey });
    expect((await generate(t, body, withCredential(credentialFor(otherRealm, instruction.reference)))).statusCode).toBe(402);
  });

  it('P4: payment is read from the processor, never from the credential', async () => {
    const body = validBody();
    const { authorization, instruction, challenge } = await paidCredential(t, body, { pay: false });
    const unpaid = await generate(t, body, withCredential(authorization));
    expect(unpaid.statusCode).toBe(402);
    expect(unpaid.json().message).toContain('not been completed');
    // A payload naming another intent than the challenge's is refused.
    const other = await paidCredential(t, validBody());
    const swapped = credentialFor(challenge, other.instruction.reference);
    expect((await generate(t, body, withCredential(swapped))).statusCode).toBe(402);
    expect((await sandboxIntent(t, instruction.reference)).status).toBe('requires_payment_method');
  });

  it('P5: a refunded payment does not count', async () => {
    const body = validBody();
    const { authorization, instruction } = await paidCredential(t, body);
    await t.deps.payments.refundIntent(instruction.reference, `refund:${instruction.reference}`);
    const res = await generate(t, body, withCredential(authorization));
    expect(res.statusCode).toBe(402);
    expect(res.json().message).toContain('refunded');
  });

  it('P6: 20 concurrent requests with one credential give exactly one entity', async () => {
    const body = validBody();
    const { authorization } = await paidCredential(t, body);
    const before = await countEntities(t);
    const answers = await Promise.all(Array.from({ length: 20 }, () => generate(t, body, withCredential(authorization))));
    for (const res of answers) {
      expect([200, 409]).toContain(res.statusCode);
      if (res.statusCode === 409) expect(res.headers['retry-after']).toBeDefined();
    }
    expect(answers.some((res) => res.statusCode === 200)).toBe(true);
    expect(await countEntities(t)).toBe(before + 1);
  });

  it('P7: an identical retry returns the same 200 and the same receipt, with Idempotent-Replayed', async () => {
    const body = validBody();
    const { authorization } = await paidCredential(t, body);
    const first = await generate(t, body, withCredential(authorization));
    const again = await generate(t, body, withCredential(authorization));
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(again.headers['payment-receipt']).toBe(first.headers['payment-receipt']);
  });

  it('P8: an invalid body gets 400 before anything, also with a credential', async () => {
    const body = validBody();
    const { authorization } = await paidCredential(t, body);
    const intents = (await db(t).selectFrom('sandbox_payment_intents').select('id').execute()).length;
    const res = await generate(t, { ...body, description: 'short' }, withCredential(authorization));
    expect(res.statusCode).toBe(400);
    expect((await db(t).selectFrom('sandbox_payment_intents').select('id').execute()).length).toBe(intents);
  });

  it('P9: a failure after payment can be retried free with the same credential', async () => {
    const f = await app({ overrides: { speech: new FlakySpeech(1) } });
    const body = validBody();
    const { authorization, instruction } = await paidCredential(f, body);
    const failed = await generate(f, body, withCredential(authorization));
    expect(failed.statusCode).toBe(503);
    expect(failed.json().payment_status).toBe('paid');
    const retried = await generate(f, body, withCredential(authorization));
    expect(retried.statusCode).toBe(200);
    expect((await sandboxIntent(f, instruction.reference)).refund_id).toBeNull();
  });

  it('P10: challenges expire with their instruction; a late credential gets a fresh 402', async () => {
    const clock = new ManualClock(new Date());
    const c = await app({ clock });
    const body = validBody();
    const { authorization, challenge, instruction } = await paidCredential(c, body, { pay: false });
    expect(challenge.expires).toBe(instruction.expires_at);
    clock.advance(1801 * 1000);
    const late = await generate(c, body, withCredential(authorization));
    expect(late.statusCode).toBe(402);
    expect(late.json().message).toContain('expired');
    expect(challengeOf(late).id).not.toBe(challenge.id);
  });

  it('P11: a challenge paid but never answered is refunded by the sweep, and its credential then gets a 402', async () => {
    const clock = new ManualClock(new Date());
    const c = await app({ clock, env: { ENTITY_REFUND_GRACE_SECONDS: '3600' } });
    const body = validBody();
    const { authorization, instruction } = await paidCredential(c, body);
    clock.advance(1801 * 1000 + 3600 * 1000);
    expect((await sweepPaymentRequests(c.deps)).refunded).toBe(1);
    expect((await sandboxIntent(c, instruction.reference)).amount_refunded).toBe(100);
    expect((await generate(c, body, withCredential(authorization))).statusCode).toBe(402);
  });

  it('P12: credentials are redacted from logs; 402 and 200 are no-store; the receipt holds no secret', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const c = await app({ overrides: { logger: createLogger('debug', sink) } });
    const body = validBody();
    const { authorization, instruction } = await paidCredential(c, body);
    const paid = await generate(c, body, withCredential(authorization));
    expect(paid.statusCode).toBe(200);
    expect(paid.headers['cache-control']).toBe('no-store');
    expect((await generate(c, validBody())).headers['cache-control']).toBe('no-store');
    const logs = lines.join('');
    expect(logs).not.toContain(authorization.slice(8, 60));
    expect(logs).not.toContain(instruction.address);
    const receipt = Buffer.from(String(paid.headers['payment-receipt']), 'base64url').toString();
    expect(receipt).not.toContain(instruction.address);
    expect(receipt).not.toContain(paid.json().receipt.deletion_token);
  });

  it('P13: strict parsing: undecodable or oversized credentials get a fresh 402, two credentials or an unknown scheme 400; both headers route', async () => {
    const body = validBody();
    for (const junk of ['Payment dGhpcyBpcyBnYXJiYWdl', 'Payment !!!', `Payment ${'A'.repeat(9000)}`]) {
      const res = await generate(t, body, { authorization: junk });
      expect(res.statusCode, junk.slice(0, 30)).toBe(402);
      expect(String(res.headers['www-authenticate'])).toMatch(/^Payment /);
    }
    const { authorization, instruction } = await paidCredential(t, body);
    const both = await generate(t, body, { authorization, ...paymentHeader(instruction.reference) });
    expect(both.statusCode).toBe(400);
    expect((await generate(t, body, { 'payment-authorization': 'Token abc' })).statusCode).toBe(400);
    // Bearer in Authorization is not a payment credential: the request is simply unpaid.
    expect((await generate(t, validBody(), { authorization: 'Bearer vn_something' })).statusCode).toBe(402);
    // The draft's `header` parameter: the same credential in Payment-Authorization, routed by scheme.
    const routed = await generate(t, body, { 'payment-authorization': authorization });
    expect(routed.statusCode).toBe(200);
  });

  it('P14: a credential for an unknown request gets the same answer as an unpaid request', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    const { id: _id, ...parameters } = challengeOf(unpaid);
    const unknownRequest = Challenge.from({
      ...parameters,
      meta: { request: 'no-such-request' },
      opaque: undefined,
      secretKey: t.deps.agentApi.keys.challengeKey,
    });
    const res = await generate(t, body, withCredential(credentialFor(unknownRequest, unpaid.json().mpp_instruction.reference)));
    expect(res.statusCode).toBe(unpaid.statusCode);
    expect(Object.keys(res.json())).toEqual(Object.keys(unpaid.json()));
    expect(res.json().message).toBe(unpaid.json().message.replace('the intent', 'the new challenge'));
  });

  it('P15: the unpaid path is rate-limited per client address, whatever credential comes with it', async () => {
    const c = await app({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '2' } });
    const from = (headers: Record<string, string>) =>
      c.app.inject({
        method: 'POST',
        url: '/api/entities/generate',
        remoteAddress: '198.51.100.9',
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(validBody()),
      });
    expect((await from({})).statusCode).toBe(402);
    expect((await from({ authorization: 'Payment dGhpcyBpcyBnYXJiYWdl' })).statusCode).toBe(402);
    const limited = await from({ authorization: 'Payment dGhpcyBpcyBnYXJiYWdl' });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('P16: the processor calls of this path carry idempotency keys (the sandbox intent of the 402)', async () => {
    const body = validBody();
    const { instruction } = await paidCredential(t, body);
    const row = await sandboxIntent(t, instruction.reference);
    expect(row.idempotency_key).toMatch(/^pi_create:/);
  });
});
