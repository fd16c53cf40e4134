/**
 * A small, stateful fake of Stripe's PaymentIntents API for tests, driven through the official
 * `stripe` SDK (`host`/`port`/`protocol: 'http'`). It models what our integration depends on:
 * create (with metadata and idempotency keys), retrieve (with `expand[]=latest_charge`), confirm
 * with the test methods `pm_card_visa` (succeeds) and `pm_card_chargeDeclined` (402 card_declined),
 * cancel (refused once succeeded), refunds (one full refund per charge) and idempotent replays
 * (`Idempotent-Replayed: true`; the same key with other parameters is an error). Shared payment
 * tokens too (the MPP `stripe` method): the test helper that grants one (`spt_…`, limited in
 * currency, amount and time, usable once) and a PaymentIntent created and confirmed from one,
 * which like Stripe needs a `.preview` API version. No published mock implements PaymentIntents
 * statefully, so the tests bring their own.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Stripe's form encoding decoded: strings, nested (`metadata[purpose]`) as objects. */
interface Params {
  [key: string]: string | Params | undefined;
}

const text = (value: Params[string]): string | undefined => (typeof value === 'string' ? value : undefined);
const nested = (value: Params[string]): Params => (typeof value === 'object' ? value : {});

export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: string;
  client_secret: string;
  metadata: Record<string, string>;
  livemode: boolean;
  description: string | null;
  latest_charge: string | null;
  automatic_payment_methods: unknown;
  last_payment_error: unknown;
  created: number;
}

export interface FakeCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  refunded: boolean;
  disputed: boolean;
  payment_intent: string;
  payment_method_details: { type: string };
}

export interface FakeSharedToken {
  id: string;
  object: 'shared_payment.granted_token';
  payment_method: string;
  usage_limits: { currency: string; max_amount: number; expires_at: number };
  used: boolean;
}

export interface LoggedRequest {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  params: Params;
  replayed: boolean;
}

const rand = (n: number) => randomBytes(n).toString('hex').slice(0, n);

/** Parses Stripe's form encoding (`metadata[purpose]=x`, `expand[0]=latest_charge`) into objects. */
export function parseStripeForm(text: string): Params {
  const out: Params = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((part) => part !== '');
    let node = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = nested((node[part] ??= {}));
    });
  }
  return out;
}

export class FakeStripe {
  readonly intents = new Map<string, FakeIntent>();
  readonly charges = new Map<string, FakeCharge>();
  readonly refunds = new Map<string, { id: string; payment_intent: string; amount: number; charge: string }>();
  readonly requests: LoggedRequest[] = [];
  readonly sharedTokens = new Map<string, FakeSharedToken>();
  private readonly idempotency = new Map<string, { path: string; params: string; status: number; body: string }>();
  private server: http.Server | null = null;
  /** The next n refund calls fail with a 500 api_error (the SDK retries those itself). */
  failNextRefunds = 0;
  /** Extra delay before answering retrieve calls (for race tests). */
  retrieveDelayMs = 0;
  port = 0;
  secretKey = 'sk_test_fake_0123456789';

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Settings that point the app's Stripe provider at this fake. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: this.secretKey,
      STRIPE_PUBLISHABLE_KEY: 'pk_test_fake_0123456789',
      STRIPE_API_HOST: '127.0.0.1',
      STRIPE_API_PORT: String(this.port),
      STRIPE_API_PROTOCOL: 'http',
      ...extra,
    };
  }

  count(filter: { method?: string; path?: RegExp; replayed?: boolean }): number {
    return this.requests.filter(
      (r) =>
        (filter.method === undefined || r.method === filter.method) &&
        (filter.path === undefined || filter.path.test(r.path)) &&
        (filter.replayed === undefined || r.replayed === filter.replayed),
    ).length;
  }

  /** Pays an intent as the agent would (server-side confirm with a test method). */
  pay(intentId: string, paymentMethod = 'pm_card_visa'): void {
    const intent = this.intents.get(intentId);
    if (!intent) throw new Error(`no intent ${intentId}`);
    this.confirm(intent, paymentMethod);
  }

  /** Marks the latest charge of an intent as disputed (as a chargeback would). */
  dispute(intentId: string): void {
    const intent = this.intents.get(intentId);
    const charge = intent?.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
    if (charge) charge.disputed = true;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://fake');
    const params =
      req.method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(Buffer.concat(chunks).toString());
    const key = req.headers['idempotency-key'] as string | undefined;
    const auth = String(req.headers.authorization ?? '');
    const send = (status: number, body: unknown, replayed = false) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${rand(14)}`,
        ...(key ? { 'idempotency-key': key } : {}),
        ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
      });
      res.end(text);
    };
    const log: LoggedRequest = { method: req.method ?? 'GET', path: url.pathname, idempotencyKey: key, params, replayed: false };
    this.requests.push(log);

    // The SDK sends Bearer; mppx's token helper sends Basic (key as the user name).
    const isSecret =
      auth === `Bearer ${this.secretKey}` || auth === `Basic ${Buffer.from(`${this.secretKey}:`).toString('base64')}`;
    const preview = String(req.headers['stripe-version'] ?? '').endsWith('.preview');
    const isPublishable = auth.startsWith('Bearer pk_test_');
    if (!isSecret && !isPublishable)
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });

    if (req.method === 'POST' && url.pathname === '/v1/refunds' && this.failNextRefunds > 0) {
      this.failNextRefunds--;
      return send(500, { error: { type: 'api_error', message: 'An unknown error occurred.' } });
    }
    if (key && req.method === 'POST') {
      const seen = this.idempotency.get(`${auth}:${key}`);
      const fingerprint = JSON.stringify(params);
      if (seen) {
        if (seen.path !== url.pathname || seen.params !== fingerprint) {
          return send(400, {
            error: {
              type: 'idempotency_error',
              message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
            },
          });
        }
        log.replayed = true;
        return send(seen.status, seen.body, true);
      }
      const result = this.route(req.method ?? 'GET', url.pathname, params, isSecret, preview);
      if (result.status < 500) {
        this.idempotency.set(`${auth}:${key}`, {
          path: url.pathname,
          params: fingerprint,
          status: result.status,
          body: JSON.stringify(result.body),
        });
      }
      return send(result.status, result.body);
    }
    if (req.method === 'GET' && this.retrieveDelayMs > 0)
      await new Promise((resolve) => setTimeout(resolve, this.retrieveDelayMs));
    const result = this.route(req.method ?? 'GET', url.pathname, params, isSecret, preview);
    return send(result.status, result.body);
  }

  private error(status: number, type: string, message: string, code?: string, extra: Record<string, unknown> = {}) {
    return { status, body: { error: { type, message, ...(code ? { code } : {}), ...extra } } };
  }

  private intentBody(intent: FakeIntent, expand: string[]) {
    if (expand.includes('latest_charge') && intent.latest_charge) {
      return { ...intent, latest_charge: this.charges.get(intent.latest_charge) };
    }
    return intent;
  }

  /** Grants a shared payment token as an agent's wallet would (what the test helper endpoint does). */
  grantToken(input: { paymentMethod?: string; currency?: string; maxAmount?: number; expiresAt?: number } = {}) {
    const token: FakeSharedToken = {
      id: `spt_${rand(24)}`,
      object: 'shared_payment.granted_token',
      payment_method: input.paymentMethod ?? 'pm_card_visa',
      usage_limits: {
        currency: input.currency ?? 'aud',
        max_amount: input.maxAmount ?? 100,
        expires_at: input.expiresAt ?? Math.floor(Date.now() / 1000) + 3600,
      },
      used: false,
    };
    this.sharedTokens.set(token.id, token);
    return token;
  }

  private route(
    method: string,
    path: string,
    params: Params,
    isSecret: boolean,
    preview = false,
  ): { status: number; body: unknown } {
    const expand = Object.values((params.expand ?? {}) as Record<string, string>);
    if (method === 'POST' && path === '/v1/test_helpers/shared_payment/granted_tokens') {
      if (!isSecret) return this.error(401, 'invalid_request_error', 'A secret key is required.');
      const limits = nested(params.usage_limits);
      const token = this.grantToken({
        paymentMethod: text(params.payment_method) ?? '',
        currency: text(limits.currency),
        maxAmount: Number(text(limits.max_amount)),
        expiresAt: Number(text(limits.expires_at)),
      });
      return { status: 200, body: token };
    }
    if (method === 'POST' && path === '/v1/payment_intents' && params.shared_payment_granted_token !== undefined) {
      if (!isSecret) return this.error(401, 'invalid_request_error', 'A secret key is required.');
      if (!preview) return this.error(400, 'invalid_request_error', 'shared_payment_granted_token needs a preview API version.');
      const token = this.sharedTokens.get(String(params.shared_payment_granted_token));
      const amount = Number(params.amount);
      const now = Math.floor(Date.now() / 1000);
      if (!token) return this.error(400, 'invalid_request_error', 'No such shared payment token.', 'resource_missing');
      if (token.used) return this.error(400, 'invalid_request_error', 'This shared payment token was already used.');
      if (token.usage_limits.expires_at <= now)
        return this.error(400, 'invalid_request_error', 'This shared payment token has expired.');
      if (token.usage_limits.currency !== params.currency || amount > token.usage_limits.max_amount)
        return this.error(400, 'invalid_request_error', "The amount or currency exceeds the token's usage limits.");
      token.used = true;
      const created = this.route(method, path, { ...params, shared_payment_granted_token: undefined }, isSecret);
      const intent = created.body as FakeIntent;
      const confirmed = this.confirm(intent, token.payment_method);
      if (confirmed.status !== 200) return confirmed;
      return { status: 200, body: this.intentBody(intent, expand) };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      if (!isSecret) return this.error(401, 'invalid_request_error', 'A secret key is required.');
      const amount = Number(params.amount);
      if (!Number.isInteger(amount) || amount < 50)
        return this.error(400, 'invalid_request_error', 'Amount must be at least 50 aud cents', 'amount_too_small');
      const id = `pi_${rand(24)}`;
      const intent: FakeIntent = {
        id,
        object: 'payment_intent',
        amount,
        amount_received: 0,
        currency: String(params.currency),
        status: 'requires_payment_method',
        client_secret: `${id}_secret_${rand(24)}`,
        metadata: Object.fromEntries(
          Object.entries(nested(params.metadata)).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
        ),
        livemode: false,
        description: text(params.description) ?? null,
        latest_charge: null,
        automatic_payment_methods: params.automatic_payment_methods
          ? {
              enabled: nested(params.automatic_payment_methods).enabled === 'true',
              allow_redirects: text(nested(params.automatic_payment_methods).allow_redirects),
            }
          : null,
        last_payment_error: null,
        created: Math.floor(Date.now() / 1000),
      };
      this.intents.set(id, intent);
      return { status: 200, body: intent };
    }
    const match = /^\/v1\/payment_intents\/([^/]+)(?:\/(confirm|cancel))?$/.exec(path);
    if (match) {
      const intent = this.intents.get(match[1] as string);
      if (!intent) return this.error(404, 'invalid_request_error', `No such payment_intent: '${match[1]}'`, 'resource_missing');
      const action = match[2];
      if (!isSecret && (params.client_secret !== intent.client_secret || (action !== 'confirm' && method !== 'GET'))) {
        return this.error(404, 'invalid_request_error', `No such payment_intent: '${match[1]}'`, 'resource_missing');
      }
      if (method === 'GET' && !action) return { status: 200, body: this.intentBody(intent, expand) };
      if (action === 'confirm') return this.confirm(intent, String(params.payment_method ?? ''));
      if (action === 'cancel') {
        if (intent.status === 'succeeded' || intent.status === 'canceled') {
          return this.error(
            400,
            'invalid_request_error',
            `You cannot cancel this PaymentIntent because it has a status of ${intent.status}.`,
            'payment_intent_unexpected_state',
          );
        }
        intent.status = 'canceled';
        return { status: 200, body: intent };
      }
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const intent = this.intents.get(String(params.payment_intent));
      if (!intent) return this.error(404, 'invalid_request_error', 'No such payment_intent', 'resource_missing');
      const charge = intent.latest_charge ? this.charges.get(intent.latest_charge) : undefined;
      if (!charge || intent.status !== 'succeeded')
        return this.error(400, 'invalid_request_error', 'This PaymentIntent has no successful charge to refund.');
      if (charge.refunded)
        return this.error(
          400,
          'invalid_request_error',
          `Charge ${charge.id} has already been refunded.`,
          'charge_already_refunded',
        );
      charge.amount_refunded = charge.amount;
      charge.refunded = true;
      const refund = {
        id: `re_${rand(24)}`,
        object: 'refund',
        payment_intent: intent.id,
        charge: charge.id,
        amount: charge.amount,
        status: 'succeeded',
      };
      this.refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }
    return this.error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  private confirm(intent: FakeIntent, paymentMethod: string) {
    if (intent.status !== 'requires_payment_method' && intent.status !== 'requires_confirmation') {
      return this.error(
        400,
        'invalid_request_error',
        `This PaymentIntent's status is ${intent.status}.`,
        'payment_intent_unexpected_state',
      );
    }
    if (paymentMethod === 'pm_card_chargeDeclined') {
      intent.last_payment_error = { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' };
      intent.status = 'requires_payment_method';
      return this.error(402, 'card_error', 'Your card was declined.', 'card_declined', {
        decline_code: 'generic_decline',
        payment_intent: intent,
      });
    }
    if (paymentMethod !== 'pm_card_visa')
      return this.error(400, 'invalid_request_error', `No such PaymentMethod: '${paymentMethod}'`, 'resource_missing');
    const charge: FakeCharge = {
      id: `ch_${rand(24)}`,
      object: 'charge',
      amount: intent.amount,
      amount_refunded: 0,
      refunded: false,
      disputed: false,
      payment_intent: intent.id,
      payment_method_details: { type: 'card' },
    };
    this.charges.set(charge.id, charge);
    intent.status = 'succeeded';
    intent.amount_received = intent.amount;
    intent.latest_charge = charge.id;
    intent.last_payment_error = null;
    return { status: 200, body: intent };
  }
}
