/**
 * The manual refund of x402 payments (docs/entities.md, x402 "Refunds", P9): x402 has no refund
 * call, so a settled payment whose publication failed for good waits in `refunding` until the
 * operator sends it back and records it: `cli x402 refunds` lists it, `cli x402 refunded <id>
 * --transaction <hash>` records it once, and the sweeper stops asking for it.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../src/deps.js';
import { insertPaymentRequest, insertX402Settlement, moveRequestState } from '../src/features/agent-api/repo.js';
import { pendingRequestRow } from '../src/features/agent-api/standard-credential.js';
import { sweepPaymentRequests } from '../src/features/agent-api/sweep.js';
import { recordX402ManualRefund, refundX402Request } from '../src/features/agent-api/x402-settlement.js';
import { X402_PROVIDER } from '../src/features/agent-api/x402.js';
import { randomToken } from '../src/lib/ids.js';
import { createLogger } from '../src/logger.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runCliCaptured } from './helpers/cli.js';

const NETWORK = 'eip155:84532';
const ASSET = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const PAY_TO = '0x209693Bc6afc0C5328bA36FaF03C514EF312287C';
const PAYER = '0x857b06519E91e3A54538791bDbb0E22373e36b66';
const MANUAL_REFUND_LOG = 'x402 payment settled but not published';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const cli = (...args: string[]) => runCliCaptured(t.childEnv(), args);
/** A transaction hash: 0x and 64 hex digits. */
const hash = () => `0x${randomBytes(32).toString('hex')}`;

/** Deps whose logger keeps every line, parsed. */
function withLog(): { deps: Deps; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { deps: { ...t.deps, logger: createLogger('info', sink) }, lines };
}

/**
 * An x402 payment settled by the facilitator whose profile could not be written (the name taken
 * between `/settle` and the write): what publish.ts does then, through the same refund call.
 */
async function settledButNotPublished(deps: Deps) {
  const db = t.deps.db.kysely;
  const id = `x402_${randomToken(20).toLowerCase()}`;
  const now = new Date().toISOString();
  const row = {
    ...pendingRequestRow(t.deps, {
      id,
      paymentIntentId: id,
      fingerprint: 'f'.repeat(64),
      now,
      expiresAt: new Date(Date.now() + 600_000).toISOString(),
    }),
    provider: X402_PROVIDER,
  };
  await insertPaymentRequest(db, row);
  await moveRequestState(db, { paymentIntentId: id, from: ['pending'], to: 'claimed', now });
  const transaction = hash();
  await insertX402Settlement(db, {
    payment_request_id: id,
    network: NETWORK,
    payer: PAYER,
    amount: '650000',
    asset: ASSET,
    pay_to: PAY_TO,
    transaction,
    settled_at: now,
  });
  await refundX402Request(deps, { ...row, state: 'claimed' }, 'the name was taken meanwhile', {});
  return { id, transaction };
}

const stateOf = async (id: string) =>
  (await t.deps.db.kysely.selectFrom('entity_payment_requests').select('state').where('id', '=', id).executeTakeFirstOrThrow())
    .state;
const settlementOf = (id: string) =>
  t.deps.db.kysely.selectFrom('x402_settlements').selectAll().where('payment_request_id', '=', id).executeTakeFirstOrThrow();
const manualRefundLogs = (lines: Array<Record<string, unknown>>, id: string) =>
  lines.filter((l) => String(l.msg).startsWith(MANUAL_REFUND_LOG) && l.payment_request === id);

describe('npm run cli -- x402 refunds / refunded', () => {
  it('lists a settled payment that was not published, records it sent back once, and the sweeper stops logging it', async () => {
    const { deps, lines } = withLog();
    const { id, transaction } = await settledButNotPublished(deps);
    expect(await stateOf(id)).toBe('refunding');
    expect(manualRefundLogs(lines, id)).toHaveLength(1);

    const listed = await cli('x402', 'refunds', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const waiting = JSON.parse(listed.stdout) as Array<Record<string, unknown>>;
    expect(waiting.find((w) => w.payment_request_id === id)).toEqual({
      payment_request_id: id,
      payer: PAYER,
      amount: '650000',
      price: { amount: '1.00', currency: 'AUD' },
      asset: ASSET,
      network: NETWORK,
      pay_to: PAY_TO,
      transaction,
      settled_at: expect.any(String),
      waiting_since: expect.any(String),
      reason: 'the name was taken meanwhile',
    });
    const text = await cli('x402', 'refunds');
    expect(text.stdout).toContain(`${id}  650000 of ${ASSET} on ${NETWORK} (1.00 AUD)  back to ${PAYER} from ${PAY_TO}`);

    // Until it is recorded, every sweep asks for it again.
    await sweepPaymentRequests(deps);
    expect(manualRefundLogs(lines, id)).toHaveLength(2);

    const refund = hash().toUpperCase().replace('0X', '0x');
    const recorded = await cli('x402', 'refunded', id, '--transaction', refund, '--json');
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(JSON.parse(recorded.stdout)).toEqual({
      payment_request_id: id,
      refund_transaction: refund.toLowerCase(),
      refunded_at: expect.any(String),
    });
    expect(await stateOf(id)).toBe('refunded');
    expect(await settlementOf(id)).toMatchObject({ refund_transaction: refund.toLowerCase(), refunded_at: expect.any(String) });

    const after = JSON.parse((await cli('x402', 'refunds', '--json')).stdout) as Array<{ payment_request_id: string }>;
    expect(after.map((w) => w.payment_request_id)).not.toContain(id);

    const again = await cli('x402', 'refunded', id, '--transaction', hash());
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already sent back');
    expect(again.stdout).toBe('');
    expect((await settlementOf(id)).refund_transaction).toBe(refund.toLowerCase());

    await sweepPaymentRequests(deps);
    expect(manualRefundLogs(lines, id)).toHaveLength(2);
    expect(await stateOf(id)).toBe('refunded');
  });

  it('refuses a missing or malformed transaction, an unknown id and a request not waiting, with exit 2 and nothing changed', async () => {
    const { deps } = withLog();
    const { id } = await settledButNotPublished(deps);
    const refused = [
      ['x402', 'refunded', id],
      ['x402', 'refunded', '--transaction', hash()],
      ['x402', 'refunded', id, '--transaction', '0x1234'],
      ['x402', 'refunded', id, '--transaction', 'a'.repeat(64)],
      ['x402', 'refunded', id, '--transaction', `0x${'g'.repeat(64)}`],
      ['x402', 'refunded', id, '--transaction', `${hash()}00`],
      ['x402', 'refunded', 'x402_unknown', '--transaction', hash()],
      ['x402', 'refunded', id, '--transaction', hash(), '--nonsense'],
    ];
    for (const args of refused) {
      const run = await cli(...args);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^Error: /);
    }
    expect(await stateOf(id)).toBe('refunding');
    expect((await settlementOf(id)).refund_transaction).toBeNull();

    // A payment still being published (settled, claimed) is not the operator's to send back.
    const pendingId = `x402_${randomToken(20).toLowerCase()}`;
    const now = new Date().toISOString();
    await insertPaymentRequest(t.deps.db.kysely, {
      ...pendingRequestRow(t.deps, {
        id: pendingId,
        paymentIntentId: pendingId,
        fingerprint: 'e'.repeat(64),
        now,
        expiresAt: now,
      }),
      provider: X402_PROVIDER,
    });
    const notWaiting = await cli('x402', 'refunded', pendingId, '--transaction', hash());
    expect(notWaiting.code).toBe(2);
    expect(notWaiting.stderr).toContain('not waiting for a manual refund');
    expect(await stateOf(pendingId)).toBe('pending');
  });

  it('counts a recorded refund in the payments metric like other refunds', async () => {
    const { deps } = withLog();
    const { id } = await settledButNotPublished(deps);
    const refunded = async () =>
      Number(
        /voicename_entity_payments_total\{outcome="refunded"\} (\d+)/.exec(await t.deps.metrics.registry.metrics())?.[1] ?? 0,
      );
    const before = await refunded();
    await recordX402ManualRefund(t.deps, { paymentRequestId: id, transaction: hash() });
    expect(await refunded()).toBe(before + 1);
    await expect(recordX402ManualRefund(t.deps, { paymentRequestId: id, transaction: hash() })).rejects.toThrow(
      /already sent back/,
    );
    expect(await refunded()).toBe(before + 1);
  });
});
