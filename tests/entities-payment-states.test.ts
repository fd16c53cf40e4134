/**
 * The payment request state machine: every move in the transition table is accepted and made,
 * every other (from, to) pair is refused before anything is written, on the real database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertPaymentTransition,
  isPaymentTransitionAllowed,
  PAYMENT_STATES,
  PAYMENT_TRANSITIONS,
  type PaymentState,
} from '../src/features/agent-api/payment-states.js';
import {
  claimPaymentRequest,
  findPaymentRequestByIntent,
  moveRequestState,
  type PaymentRequestRow,
} from '../src/features/agent-api/repo.js';
import { newId } from '../src/lib/ids.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const EARLIER = '2026-01-01T00:00:00.000Z';
const NOW = '2026-01-01T00:05:00.000Z';

/** A request row in `state`, written directly (states are only reachable through the table otherwise). */
async function requestIn(state: PaymentState): Promise<string> {
  const id = newId();
  const row: PaymentRequestRow = {
    id,
    payment_intent_id: `pi_test_${id}`,
    provider: 'sandbox',
    fingerprint: 'f'.repeat(64),
    amount_minor: 100,
    currency: 'aud',
    livemode: 0,
    state,
    attempts: 0,
    entity_id: null,
    last_error: null,
    created_at: EARLIER,
    expires_at: EARLIER,
    claimed_at: EARLIER,
    updated_at: EARLIER,
  };
  await database.db.kysely.insertInto('entity_payment_requests').values(row).execute();
  return row.payment_intent_id;
}

const pairs = PAYMENT_STATES.flatMap((from) => PAYMENT_STATES.map((to) => [from, to] as const));
const allowed = pairs.filter(([from, to]) => PAYMENT_TRANSITIONS[from].includes(to));
const refused = pairs.filter(([from, to]) => !PAYMENT_TRANSITIONS[from].includes(to));

describe('payment transition table', () => {
  it('names only known states and leaves published, refunded and canceled final', () => {
    for (const targets of Object.values(PAYMENT_TRANSITIONS)) {
      for (const to of targets) expect(PAYMENT_STATES).toContain(to);
    }
    expect(PAYMENT_TRANSITIONS.published).toEqual([]);
    expect(PAYMENT_TRANSITIONS.refunded).toEqual([]);
    expect(PAYMENT_TRANSITIONS.canceled).toEqual([]);
    expect(allowed.length + refused.length).toBe(PAYMENT_STATES.length ** 2);
    expect(allowed.length).toBeGreaterThan(0);
  });

  it.each(refused)('refuses %s → %s before writing anything', async (from, to) => {
    expect(isPaymentTransitionAllowed(from, to)).toBe(false);
    expect(() => assertPaymentTransition([from], to)).toThrow(`cannot move from ${from} to ${to}`);
    const reference = await requestIn(from);
    await expect(
      moveRequestState(database.db.kysely, { paymentIntentId: reference, from: [from], to, now: NOW }),
    ).rejects.toThrow(/cannot move/);
    const row = await findPaymentRequestByIntent(database.db.kysely, reference);
    expect(row?.state).toBe(from);
    expect(row?.updated_at).toBe(EARLIER);
  });

  it.each(allowed)('accepts %s → %s and makes the move', async (from, to) => {
    expect(isPaymentTransitionAllowed(from, to)).toBe(true);
    expect(() => assertPaymentTransition([from], to)).not.toThrow();
    const reference = await requestIn(from);
    expect(await moveRequestState(database.db.kysely, { paymentIntentId: reference, from: [from], to, now: NOW })).toBe(true);
    const row = await findPaymentRequestByIntent(database.db.kysely, reference);
    expect(row?.state).toBe(to);
    expect(row?.updated_at).toBe(NOW);
  });

  it('refuses a list with one disallowed source state, and an empty list', async () => {
    const reference = await requestIn('pending');
    await expect(
      moveRequestState(database.db.kysely, {
        paymentIntentId: reference,
        from: ['pending', 'published'],
        to: 'claimed',
        now: NOW,
      }),
    ).rejects.toThrow('cannot move from published to claimed');
    await expect(
      moveRequestState(database.db.kysely, { paymentIntentId: reference, from: [], to: 'claimed', now: NOW }),
    ).rejects.toThrow(/cannot move/);
    expect((await findPaymentRequestByIntent(database.db.kysely, reference))?.state).toBe('pending');
  });

  it('the SQL still guards the source state: a request elsewhere is not moved', async () => {
    const reference = await requestIn('published');
    expect(
      await moveRequestState(database.db.kysely, { paymentIntentId: reference, from: ['pending'], to: 'canceled', now: NOW }),
    ).toBe(false);
    expect((await findPaymentRequestByIntent(database.db.kysely, reference))?.state).toBe('published');
  });

  it('the claim takes pending and stale claims only', async () => {
    const pending = await requestIn('pending');
    const stale = await requestIn('claimed');
    const done = await requestIn('published');
    const claim = (paymentIntentId: string, staleBefore: string) =>
      claimPaymentRequest(database.db.kysely, { paymentIntentId, now: NOW, staleBefore });
    expect(await claim(pending, EARLIER)).toBe(true);
    expect(await claim(stale, EARLIER)).toBe(false); // claimed at EARLIER: not older than EARLIER
    expect(await claim(stale, NOW)).toBe(true);
    expect(await claim(done, NOW)).toBe(false);
    const taken = await findPaymentRequestByIntent(database.db.kysely, stale);
    expect(taken).toMatchObject({ state: 'claimed', claimed_at: NOW, attempts: 1 });
  });
});
