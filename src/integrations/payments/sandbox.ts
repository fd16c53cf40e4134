/**
 * The built-in sandbox processor: payment intents are rows in our own database, and an agent
 * "pays" one with `POST {SITE_URL}/api/sandbox/payment-intents/{id}/confirm` and the client
 * secret. It behaves like Stripe where we depend on it (statuses, idempotency keys, one refund),
 * so the whole paid flow can be tried locally with no account anywhere.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/index.js';
import type { SandboxPaymentIntentsTable } from '../../db/schema.js';
import { type Clock, isoNow } from '../../lib/clock.js';
import { safeEqual } from '../../lib/secrets.js';
import type { CreateIntentInput, PaymentIntentView, PaymentProvider } from './provider.js';
import {
  cancelSandboxIntent,
  findSandboxIntent,
  findSandboxIntentByIdempotencyKey,
  insertSandboxIntent,
  refundSandboxIntent,
  succeedSandboxIntent,
} from './repo.js';

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const randomAlnum = (length: number): string =>
  Array.from(randomBytes(length), (byte) => ALPHANUM[byte % ALPHANUM.length]).join('');

export type ConfirmOutcome =
  | { kind: 'confirmed'; intent: PaymentIntentView }
  | { kind: 'declined'; intent: PaymentIntentView }
  | { kind: 'not_found' }
  | { kind: 'wrong_state'; intent: PaymentIntentView };

function view(row: SandboxPaymentIntentsTable): PaymentIntentView {
  const status = row.status;
  return {
    id: row.id,
    status,
    amount: row.amount,
    amountReceived: status === 'succeeded' ? row.amount : 0,
    currency: row.currency,
    livemode: false,
    clientSecret: row.client_secret,
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    amountRefunded: Number(row.amount_refunded),
    disputed: false,
    paymentMethodType: row.payment_method_type,
  };
}

export class SandboxPaymentProvider implements PaymentProvider {
  readonly name = 'sandbox' as const;
  readonly livemode = false;
  readonly publishableKey = null;

  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  private find(id: string) {
    return findSandboxIntent(this.deps.db.kysely, id);
  }

  async createIntent(input: CreateIntentInput): Promise<PaymentIntentView> {
    const db = this.deps.db.kysely;
    const replay = await findSandboxIntentByIdempotencyKey(db, input.idempotencyKey);
    if (replay) return view(replay);
    const id = `pi_${randomAlnum(24)}`;
    const now = isoNow(this.deps.clock);
    const row: SandboxPaymentIntentsTable = {
      id,
      client_secret: `${id}_secret_${randomAlnum(24)}`,
      amount: input.amountMinor,
      currency: input.currency,
      status: 'requires_payment_method',
      metadata: JSON.stringify(input.metadata),
      idempotency_key: input.idempotencyKey,
      payment_method_type: null,
      amount_refunded: 0,
      refund_id: null,
      created_at: now,
      updated_at: now,
    };
    await insertSandboxIntent(db, row);
    return view(row);
  }

  async retrieveIntent(id: string): Promise<PaymentIntentView | null> {
    const row = await this.find(id);
    return row ? view(row) : null;
  }

  async cancelIntent(id: string): Promise<PaymentIntentView> {
    await cancelSandboxIntent(this.deps.db.kysely, id, isoNow(this.deps.clock));
    const row = await this.find(id);
    if (!row) throw new Error(`no sandbox intent ${id}`);
    return view(row);
  }

  async refundIntent(id: string, _idempotencyKey: string): Promise<{ id: string }> {
    const refundId = `re_${randomAlnum(24)}`;
    // One full refund per intent, whoever asks and however often: the first writer wins.
    await refundSandboxIntent(this.deps.db.kysely, id, refundId, isoNow(this.deps.clock));
    const row = await this.find(id);
    if (!row?.refund_id) throw new Error(`sandbox intent ${id} cannot be refunded`);
    return { id: row.refund_id };
  }

  /** The agent-facing "pay" step: the client secret authorises it, the test method decides the outcome. */
  async confirm(id: string, clientSecret: string, paymentMethod: string): Promise<ConfirmOutcome> {
    const row = await this.find(id);
    if (!row || !safeEqual(row.client_secret, clientSecret)) return { kind: 'not_found' };
    if (row.status !== 'requires_payment_method' && row.status !== 'requires_confirmation') {
      return { kind: 'wrong_state', intent: view(row) };
    }
    if (paymentMethod === 'pm_card_chargeDeclined') return { kind: 'declined', intent: view(row) };
    await succeedSandboxIntent(this.deps.db.kysely, id, row.status, isoNow(this.deps.clock));
    const updated = await this.find(id);
    if (!updated) return { kind: 'not_found' };
    if (updated.status !== 'succeeded') return { kind: 'wrong_state', intent: view(updated) };
    return { kind: 'confirmed', intent: view(updated) };
  }
}
