/**
 * The sixteen properties of docs/entities.md ("What keeps paid requests safe"), one test each,
 * named by property, on the sandbox processor (P4's mode check, P5's disputes and P16 are also
 * exercised through the Stripe SDK in entities-stripe.test.ts).
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimPaymentRequest, renewClaim } from '../src/features/agent-api/repo.js';
import { insertEntity } from '../src/features/profiles/repo.js';
import { CLAIM_LEASE_MS } from '../src/features/agent-api/service.js';
import { sweepPaymentRequests } from '../src/features/agent-api/sweep.js';
import { ManualClock } from '../src/lib/clock.js';
import { sha256Hex } from '../src/lib/secrets.js';
import { createLogger } from '../src/logger.js';
import type { SpeechEngine, SpeechRequest } from '../src/speech/synthesizer.js';
import type { TestApp } from './helpers/app.js';
import { confirmSandbox, entityApps, generate, paymentHeader, publishEntity, validBody } from './helpers/entities.js';
import { FakeSpeech } from './helpers/fake-speech.js';

const apps = entityApps();
const app = apps.app;
afterAll(apps.closeAll);

const db = (t: TestApp) => t.deps.db.kysely;
const countEntities = async (t: TestApp) =>
  Number(
    (
      await db(t)
        .selectFrom('entities')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const countIntents = async (t: TestApp) =>
  Number(
    (
      await db(t)
        .selectFrom('sandbox_payment_intents')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const intentRow = (t: TestApp, id: string) =>
  db(t).selectFrom('sandbox_payment_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const requestRow = (t: TestApp, id: string) =>
  db(t).selectFrom('entity_payment_requests').selectAll().where('payment_intent_id', '=', id).executeTakeFirstOrThrow();
const refundsOf = async (t: TestApp) =>
  (await db(t).selectFrom('sandbox_payment_intents').select('refund_id').where('refund_id', 'is not', null).execute()).length;

/** Unpaid request, then pay the intent: returns the instruction. */
async function paidInstruction(t: TestApp, body: Record<string, unknown>) {
  const unpaid = await generate(t, body);
  expect(unpaid.statusCode).toBe(402);
  const instruction = unpaid.json().mpp_instruction;
  expect((await confirmSandbox(t, instruction)).statusCode).toBe(200);
  return instruction as { reference: string; address: string };
}

/** Fails the first `failures` calls (or all, with Infinity), then speaks through `real`. */
class FlakySpeech implements SpeechEngine {
  calls = 0;
  constructor(
    private readonly real: SpeechEngine,
    private failures: number,
  ) {}
  async synthesize(request: SpeechRequest) {
    this.calls++;
    if (this.failures > 0) {
      this.failures--;
      throw new Error('speech engine crashed');
    }
    return this.real.synthesize(request);
  }
  phonemize(request: { text: string; language?: string }) {
    return this.real.phonemize(request);
  }
  close() {
    return this.real.close();
  }
}

describe('payment properties', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app();
  });

  it('P1: one paid intent publishes at most one entity (atomic claim, unique constraint)', async () => {
    const body = validBody();
    const instruction = await paidInstruction(t, body);
    const before = await countEntities(t);
    const first = await generate(t, body, paymentHeader(instruction.reference));
    expect(first.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await generate(t, body, paymentHeader(instruction.reference))).statusCode).toBe(200);
    expect(await countEntities(t)).toBe(before + 1);
    // The database refuses a second entity for the same payment even if the state machine had a bug.
    const existing = await db(t)
      .selectFrom('entities')
      .selectAll()
      .where('payment_intent_id', '=', instruction.reference)
      .executeTakeFirstOrThrow();
    await expect(insertEntity(db(t), { ...existing, id: 'another-id', slug: 'another-slug' })).rejects.toThrow();
  });

  it('P2: the intent is bound to the request that created it; a different body gets 409', async () => {
    const bodyA = validBody({ description: 'A cheap request, the one that was paid for.' });
    const bodyB = validBody({ description: 'Another request that tries to use the same payment.' });
    const instruction = await paidInstruction(t, bodyA);
    const intent = await intentRow(t, instruction.reference);
    expect(JSON.parse(intent.metadata)).toMatchObject({
      purpose: 'entities.generate',
      request_fingerprint: (await requestRow(t, instruction.reference)).fingerprint,
    });
    const before = await countEntities(t);
    const mismatch = await generate(t, bodyB, paymentHeader(instruction.reference));
    expect(mismatch.statusCode).toBe(409);
    expect(mismatch.json()).toEqual({ status: 'payment_request_mismatch', message: expect.any(String) });
    // Same values, another key order: the same canonical request.
    const reordered = Object.fromEntries(Object.entries({ ...bodyA, name: `${bodyA.name} ` }).reverse());
    expect((await generate(t, reordered, paymentHeader(instruction.reference))).statusCode).toBe(409);
    expect(await countEntities(t)).toBe(before);
    const reversed = Object.fromEntries(Object.entries(bodyA).reverse());
    expect((await generate(t, reversed, paymentHeader(instruction.reference))).statusCode).toBe(200);
  });

  it('P3: only intents this endpoint created are accepted (row must exist, metadata purpose must match)', async () => {
    // An intent made by something else on the same processor account, and paid.
    const foreign = await t.deps.payments.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'something else',
      metadata: { purpose: 'shop.checkout' },
      idempotencyKey: 'other:1',
    });
    expect((await confirmSandbox(t, { reference: foreign.id, address: foreign.clientSecret as string })).statusCode).toBe(200);
    const body = validBody();
    const res = await generate(t, body, paymentHeader(foreign.id));
    expect(res.statusCode).toBe(402);
    expect(res.json().mpp_instruction.reference).not.toBe(foreign.id);
    // A row exists, but the processor-side metadata says another purpose.
    const body2 = validBody();
    const instruction = await paidInstruction(t, body2);
    const row = await intentRow(t, instruction.reference);
    await db(t)
      .updateTable('sandbox_payment_intents')
      .set({ metadata: JSON.stringify({ ...JSON.parse(row.metadata), purpose: 'shop.checkout' }) })
      .where('id', '=', instruction.reference)
      .execute();
    const before = await countEntities(t);
    const tampered = await generate(t, body2, paymentHeader(instruction.reference));
    expect(tampered.statusCode).toBe(402);
    expect(tampered.json().mpp_instruction.reference).not.toBe(instruction.reference);
    expect(await countEntities(t)).toBe(before);
  });

  it('P4: amount, currency and status are read from the processor, never from the client', async () => {
    for (const patch of [{ amount: 50 }, { currency: 'usd' }, { status: 'requires_payment_method' as const }]) {
      const body = validBody();
      const instruction = await paidInstruction(t, body);
      await db(t).updateTable('sandbox_payment_intents').set(patch).where('id', '=', instruction.reference).execute();
      const before = await countEntities(t);
      const res = await generate(t, body, paymentHeader(instruction.reference));
      expect(res.statusCode).toBe(402);
      expect(await countEntities(t)).toBe(before);
    }
  });

  it('P5: only settled intents count; processing, refunded payments do not', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    const instruction = unpaid.json().mpp_instruction;
    // Not paid yet: the same instruction again.
    const notYet = await generate(t, body, paymentHeader(instruction.reference));
    expect(notYet.statusCode).toBe(402);
    expect(notYet.json().mpp_instruction).toEqual(instruction);
    await db(t)
      .updateTable('sandbox_payment_intents')
      .set({ status: 'processing' })
      .where('id', '=', instruction.reference)
      .execute();
    const processing = await generate(t, body, paymentHeader(instruction.reference));
    expect(processing.statusCode).toBe(402);
    expect(processing.headers['retry-after']).toBe('5');
    expect(processing.json().mpp_instruction.reference).toBe(instruction.reference);
    // Paid, then reversed before it was used.
    const body2 = validBody();
    const paid = await paidInstruction(t, body2);
    await t.deps.payments.refundIntent(paid.reference, 'test-reversal');
    const before = await countEntities(t);
    const reversed = await generate(t, body2, paymentHeader(paid.reference));
    expect(reversed.statusCode).toBe(402);
    expect(reversed.json().mpp_instruction.reference).not.toBe(paid.reference);
    expect(await countEntities(t)).toBe(before);
  });

  it('P6: 20 concurrent paid retries give exactly one entity, one receipt, no refund; the others get 409 with Retry-After or the same 200', async () => {
    const body = validBody();
    const instruction = await paidInstruction(t, body);
    const before = await countEntities(t);
    const refundsBefore = await refundsOf(t);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => generate(t, body, paymentHeader(instruction.reference))),
    );
    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const ok = responses.filter((r) => r.statusCode === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ok.map((r) => r.json().receipt.deletion_token)).size).toBe(1);
    expect(ok.filter((r) => r.headers['idempotent-replayed'] !== 'true').length).toBe(1);
    for (const r of responses.filter((r) => r.statusCode === 409)) {
      expect(r.json().status).toBe('payment_in_progress');
      expect(r.headers['retry-after']).toBe('2');
    }
    expect(await countEntities(t)).toBe(before + 1);
    expect(await refundsOf(t)).toBe(refundsBefore);
    const after = await generate(t, body, paymentHeader(instruction.reference));
    expect(after.statusCode).toBe(200);
    expect(after.json().receipt).toEqual(ok[0]?.json().receipt);
  });

  it('P6: a claim whose process died mid-publish is taken over within seconds, and the retry publishes', async () => {
    const clock = new ManualClock(new Date());
    const c = await app({ clock });
    const body = validBody();
    const instruction = await paidInstruction(c, body);
    // Another process claimed this payment, then died (kill -9) before publishing.
    const now = clock.now();
    const claimed = await claimPaymentRequest(db(c), {
      paymentIntentId: instruction.reference,
      now: now.toISOString(),
      staleBefore: new Date(now.getTime() - CLAIM_LEASE_MS).toISOString(),
    });
    expect(claimed).toBe(true);
    const waiting = await generate(c, body, paymentHeader(instruction.reference));
    expect(waiting.statusCode).toBe(409);
    expect(waiting.json().status).toBe('payment_in_progress');
    // While its holder renews it (the heartbeat), the claim stays its holder's past the lease.
    clock.advance(CLAIM_LEASE_MS - 5_000);
    const renewedAt = clock.now().toISOString();
    expect(
      await renewClaim(db(c), { paymentIntentId: instruction.reference, claimedAt: now.toISOString(), now: renewedAt }),
    ).toBe(true);
    clock.advance(10_000);
    expect((await generate(c, body, paymentHeader(instruction.reference))).statusCode).toBe(409);
    // Then the holder dies: nobody renews, and seconds later the agent's retry takes it over.
    expect(CLAIM_LEASE_MS).toBeLessThanOrEqual(15_000);
    clock.advance(CLAIM_LEASE_MS);
    const retried = await generate(c, body, paymentHeader(instruction.reference));
    expect(retried.statusCode).toBe(200);
    expect((await requestRow(c, instruction.reference)).state).toBe('published');
    // The dead holder's late heartbeat finds its claim gone.
    expect(await renewClaim(db(c), { paymentIntentId: instruction.reference, claimedAt: renewedAt, now: renewedAt })).toBe(false);
  });

  it('P7: an identical retry after success returns the same 200 with Idempotent-Replayed: true', async () => {
    const body = validBody();
    const { instruction, paid } = await publishEntity(t, body);
    expect(paid.statusCode).toBe(200);
    expect(paid.headers['idempotent-replayed']).toBeUndefined();
    const intents = await countIntents(t);
    const entities = await countEntities(t);
    const again = await generate(t, body, paymentHeader(instruction.reference));
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(paid.json());
    expect(await countIntents(t)).toBe(intents);
    expect(await countEntities(t)).toBe(entities);
  });

  it('P8: invalid payloads get 400 before any intent exists, also with a payment header', async () => {
    const intents = await countIntents(t);
    const invalid = validBody({ description: 'short' });
    expect((await generate(t, invalid)).statusCode).toBe(400);
    expect((await generate(t, invalid, paymentHeader('pi_AAAAAAAAAAAAAAAAAAAAAAAA'))).statusCode).toBe(400);
    expect(await countIntents(t)).toBe(intents);
    // With a real paid reference: still 400, and the payment stays usable for the valid request.
    const body = validBody();
    const instruction = await paidInstruction(t, body);
    expect((await generate(t, { ...body, description: 'short' }, paymentHeader(instruction.reference))).statusCode).toBe(400);
    expect((await generate(t, body, paymentHeader(instruction.reference))).statusCode).toBe(200);
  });

  it('P9: a failure after payment can be retried free; a permanent failure is refunded exactly once', async () => {
    const real = new FakeSpeech();
    const flaky = new FlakySpeech(real, 1);
    const f = await app({ overrides: { speech: flaky } });
    const body = validBody();
    const instruction = await paidInstruction(f, body);
    const failed = await generate(f, body, paymentHeader(instruction.reference));
    expect(failed.statusCode).toBe(503);
    expect(failed.json()).toMatchObject({ status: 'temporarily_unavailable', payment_status: 'paid' });
    expect(failed.headers['retry-after']).toBeTruthy();
    const intents = await countIntents(f);
    const retried = await generate(f, body, paymentHeader(instruction.reference));
    expect(retried.statusCode).toBe(200);
    expect(await countIntents(f)).toBe(intents);

    const broken = new FlakySpeech(real, Number.POSITIVE_INFINITY);
    const g = await app({ overrides: { speech: broken } });
    const body2 = validBody();
    const paid = await paidInstruction(g, body2);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await generate(g, body2, paymentHeader(paid.reference)));
    expect(answers.map((a) => a.statusCode)).toEqual([503, 503, 502]);
    expect(answers[2]?.json()).toMatchObject({ status: 'failed', payment_status: 'refunded', transaction_id: paid.reference });
    const afterwards = await Promise.all(Array.from({ length: 5 }, () => generate(g, body2, paymentHeader(paid.reference))));
    expect(afterwards.every((a) => a.statusCode === 402)).toBe(true);
    await sweepPaymentRequests(g.deps);
    const intent = await intentRow(g, paid.reference);
    expect(intent.amount_refunded).toBe(100);
    expect(await refundsOf(g)).toBe(1);
    expect((await requestRow(g, paid.reference)).state).toBe('refunded');
    expect(await countEntities(g)).toBe(0);
    await real.close();
  });

  it('P9: two paid requests racing for one name: one publishes, the other gets 400 name taken and is refunded once', async () => {
    const name = `Racer ${Date.now()}`;
    const bodyA = validBody({ name, description: 'The first of two agents that want one name.' });
    const bodyB = validBody({ name, description: 'The second of two agents that want one name.' });
    const a = await paidInstruction(t, bodyA);
    const b = await paidInstruction(t, bodyB);
    const refundsBefore = await refundsOf(t);
    const [ra, rb] = await Promise.all([
      generate(t, bodyA, paymentHeader(a.reference)),
      generate(t, bodyB, paymentHeader(b.reference)),
    ]);
    const statuses = [ra.statusCode, rb.statusCode].sort();
    expect(statuses).toEqual([200, 400]);
    const loser = ra.statusCode === 400 ? ra : rb;
    const loserRef = ra.statusCode === 400 ? a.reference : b.reference;
    expect(loser.json().invalid[0].field).toBe('name');
    expect(loser.json().message).toContain('refunded');
    expect(await refundsOf(t)).toBe(refundsBefore + 1);
    expect((await intentRow(t, loserRef)).amount_refunded).toBe(100);
    expect((await requestRow(t, loserRef)).state).toBe('refunded');
    expect((await generate(t, ra.statusCode === 400 ? bodyA : bodyB, paymentHeader(loserRef))).statusCode).toBe(400);
    expect(await refundsOf(t)).toBe(refundsBefore + 1);
  });

  it('P10: instructions expire; expired unpaid intents are cancelled; a late retry gets a fresh 402', async () => {
    const clock = new ManualClock(new Date());
    const c = await app({ clock });
    const body = validBody();
    const unpaid = await generate(c, body);
    const instruction = unpaid.json().mpp_instruction;
    expect(Date.parse(instruction.expires_at) - clock.now().getTime()).toBe(1800 * 1000);
    clock.advance(1801 * 1000);
    const late = await generate(c, body, paymentHeader(instruction.reference));
    expect(late.statusCode).toBe(402);
    expect(late.json().mpp_instruction.reference).not.toBe(instruction.reference);
    expect((await intentRow(c, instruction.reference)).status).toBe('canceled');
    // The stale client secret can no longer be paid.
    expect((await confirmSandbox(c, instruction)).statusCode).toBe(409);
    // The sweeper cancels expired instructions nobody came back for.
    const forgotten = (await generate(c, validBody())).json().mpp_instruction;
    clock.advance(1801 * 1000);
    const report = await sweepPaymentRequests(c.deps);
    expect(report.canceled).toBeGreaterThanOrEqual(1);
    expect((await intentRow(c, forgotten.reference)).status).toBe('canceled');
    expect((await requestRow(c, forgotten.reference)).state).toBe('canceled');
    // Paid in time but retried after expiry: honoured.
    const body3 = validBody();
    const paid = await paidInstruction(c, body3);
    clock.advance(1801 * 1000);
    expect((await generate(c, body3, paymentHeader(paid.reference))).statusCode).toBe(200);
    // Canceled requests are deleted 30 days after they were canceled, not before.
    clock.advance(29 * 86_400_000);
    expect((await sweepPaymentRequests(c.deps)).purged).toBe(0);
    expect((await requestRow(c, forgotten.reference)).state).toBe('canceled');
    clock.advance(2 * 86_400_000);
    expect((await sweepPaymentRequests(c.deps)).purged).toBeGreaterThanOrEqual(2);
    expect(
      await db(c)
        .selectFrom('entity_payment_requests')
        .select('id')
        .where('payment_intent_id', '=', forgotten.reference)
        .executeTakeFirst(),
    ).toBeUndefined();
  });

  it('P11: paid intents never claimed are refunded by the periodic sweep after a grace period', async () => {
    const clock = new ManualClock(new Date());
    const c = await app({ clock, env: { ENTITY_REFUND_GRACE_SECONDS: '3600' } });
    const body = validBody();
    const instruction = await paidInstruction(c, body);
    clock.advance(1801 * 1000);
    const early = await sweepPaymentRequests(c.deps);
    expect(early).toMatchObject({ refunded: 0, waiting: 1 });
    clock.advance(3600 * 1000);
    const report = await sweepPaymentRequests(c.deps);
    expect(report.refunded).toBe(1);
    expect((await intentRow(c, instruction.reference)).amount_refunded).toBe(100);
    expect((await requestRow(c, instruction.reference)).state).toBe('refunded');
    expect((await sweepPaymentRequests(c.deps)).refunded).toBe(0);
    expect(await refundsOf(c)).toBe(1);
    const late = await generate(c, body, paymentHeader(instruction.reference));
    expect(late.statusCode).toBe(402);
    expect(late.json().message).toContain('refunded');
  });

  it('P12: secrets stay secret: redacted logs, no-store responses, only the hash of the deletion token is stored', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const c = await app({ overrides: { logger: createLogger('trace', sink) } });
    const body = validBody();
    const unpaid = await generate(c, body);
    expect(unpaid.headers['cache-control']).toBe('no-store');
    const instruction = unpaid.json().mpp_instruction;
    await confirmSandbox(c, instruction);
    const header = paymentHeader(instruction.reference);
    const paid = await generate(c, body, header);
    expect(paid.headers['cache-control']).toBe('no-store');
    const token = paid.json().receipt.deletion_token;
    c.deps.logger.info(
      { headers: { 'payment-authorization': header['payment-authorization'], 'deletion-token': token } },
      'probe',
    );
    await c.app.inject({ method: 'DELETE', url: '/api/entities/nonexistent', headers: { 'deletion-token': token } });
    const logs = lines.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).toContain('[redacted]');
    expect(logs).not.toContain(instruction.address);
    expect(logs).not.toContain(header['payment-authorization']);
    expect(logs).not.toContain(token);
    const row = await db(c)
      .selectFrom('entities')
      .selectAll()
      .where('payment_intent_id', '=', instruction.reference)
      .executeTakeFirstOrThrow();
    expect(row.deletion_token_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const requests = await db(c).selectFrom('entity_payment_requests').selectAll().execute();
    expect(JSON.stringify(requests)).not.toContain(token);
    expect(JSON.stringify(requests)).not.toContain(instruction.address);
  });

  it('P13: strict header parsing: one header, bounded length, mpp scheme, quoted or bare reference, id pattern', async () => {
    const body = validBody();
    const instruction = await paidInstruction(t, body);
    const ref = instruction.reference;
    for (const value of [
      `mpp; reference="${ref}"`,
      `MPP; Reference="${ref}"`,
      `mpp reference=${ref}`,
      `mpp;reference=${ref}`,
      ` mpp ;  reference = "${ref}" `,
    ]) {
      expect((await generate(t, body, { 'payment-authorization': value })).statusCode, value).toBe(200);
    }
    const bad = [
      `Bearer ${ref}`,
      `mpp; ref="${ref}"`,
      `mpp; reference="${ref}" extra`,
      `mpp; reference="${ref}"; reference="pi_BBBBBBBBBBBBBBBB"`,
      'mpp; reference="ch_AAAAAAAAAAAAAAAA"',
      'mpp; reference="pi_short"',
      `mpp; reference="pi_${'A'.repeat(65)}"`,
      `mpp; reference="${ref}"${' '.repeat(300)}x`,
      'mpp; reference="pi_AAAAAAAA\\"AAAA"',
      '',
    ];
    for (const value of bad) {
      const res = await generate(t, body, { 'payment-authorization': value });
      expect(res.statusCode, value).toBe(400);
      expect(res.json().invalid[0]).toMatchObject({
        field: 'Payment-Authorization',
        allowed: ['one header: mpp; reference="<payment_intent_id>"', 'one header: Payment <base64url credential>'],
      });
    }
    const twice = await t.app.inject({
      method: 'POST',
      url: '/api/entities/generate',
      headers: {
        'content-type': 'application/json',
        'payment-authorization': [`mpp; reference="${ref}"`, `mpp; reference="${ref}"`],
      },
      payload: JSON.stringify(body),
    });
    expect(twice.statusCode).toBe(400);
  });

  it('P14: unknown and foreign references get the same answer as an unpaid request', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    const unknown = await generate(t, body, paymentHeader('pi_Zz9Zz9Zz9Zz9Zz9Zz9Zz9Zz9'));
    const foreignIntent = await t.deps.payments.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'x',
      metadata: {},
      idempotencyKey: 'foreign:p14',
    });
    const foreign = await generate(t, body, paymentHeader(foreignIntent.id));
    const shape = (res: typeof unpaid) => ({
      status: res.statusCode,
      keys: Object.keys(res.json()).sort(),
      instructionKeys: Object.keys(res.json().mpp_instruction).sort(),
      message: res.json().message,
      headers: [res.headers['cache-control'], res.headers['content-type']],
    });
    expect(shape(unknown)).toEqual(shape(unpaid));
    expect(shape(foreign)).toEqual(shape(unpaid));
    const references = new Set([unpaid, unknown, foreign].map((r) => r.json().mpp_instruction.reference));
    expect(references.size).toBe(3);
    expect(references.has(foreignIntent.id)).toBe(false);
  });

  it('P15: the unpaid path is rate-limited per client address', async () => {
    const c = await app({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '3' } });
    const from = (address: string, body: unknown, headers: Record<string, string> = {}) =>
      c.app.inject({
        method: 'POST',
        url: '/api/entities/generate',
        remoteAddress: address,
        headers: { 'content-type': 'application/json', ...headers },
        payload: JSON.stringify(body),
      });
    const body = validBody();
    const first = await from('198.51.100.7', body);
    const instruction = first.json().mpp_instruction;
    await confirmSandbox(c, instruction);
    for (let i = 0; i < 2; i++) expect((await from('198.51.100.7', validBody())).statusCode).toBe(402);
    const limited = await from('198.51.100.7', validBody());
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({ status: 'rate_limited', message: expect.any(String) });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Unknown references would mint intents too, so they are limited as well.
    expect((await from('198.51.100.7', validBody(), paymentHeader('pi_Unknown0000000000000000'))).statusCode).toBe(429);
    // Invalid bodies still get their 400; paid retries still publish; other addresses are unaffected.
    expect((await from('198.51.100.7', { name: 'x' })).statusCode).toBe(400);
    expect((await from('198.51.100.7', body, paymentHeader(instruction.reference))).statusCode).toBe(200);
    expect((await from('203.0.113.9', validBody())).statusCode).toBe(402);
  });

  it('P16: calls to the processor carry idempotency keys (create, refund)', async () => {
    const body = validBody();
    const unpaid = await generate(t, body);
    const reference = unpaid.json().mpp_instruction.reference;
    const row = await intentRow(t, reference);
    const request = await requestRow(t, reference);
    expect(row.idempotency_key).toBe(`pi_create:${request.id}`);
    // Repeating our own create call with the same key returns the same intent, not a second one.
    const again = await t.deps.payments.createIntent({
      amountMinor: 100,
      currency: 'aud',
      description: 'retry of our own call',
      metadata: JSON.parse(row.metadata),
      idempotencyKey: `pi_create:${request.id}`,
    });
    expect(again.id).toBe(reference);
    await confirmSandbox(t, unpaid.json().mpp_instruction);
    const first = await t.deps.payments.refundIntent(reference, `refund:${reference}`);
    const second = await t.deps.payments.refundIntent(reference, `refund:${reference}`);
    expect(second.id).toBe(first.id);
  });
});
