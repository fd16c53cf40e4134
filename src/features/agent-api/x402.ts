/**
 * The x402 v2 side of paid generation (x402 Foundation, "exact" scheme on EVM), offered beside
 * MPP when X402_* is configured: the `PAYMENT-REQUIRED` header of every 402, the check of a
 * `PAYMENT-SIGNATURE` that answers it, the facilitator's `/verify` and `/settle`, and the
 * `PAYMENT-RESPONSE` of a paid 200. Headers are base64 of JSON, as the transport spec defines.
 *
 * Each offer names the payment request of its 402 (our row, bound to the body's fingerprint) in
 * `extra.request`, with an HMAC over the offer in `extra.binding` under a key only this service
 * holds: a signature made for one body cannot pay for another (P2), and an offer we did not make
 * is refused (P3). The payer signs over the whole offer (`accepted`), so the facilitator checks
 * the same terms we do.
 */
import { createHmac } from 'node:crypto';
import type { X402Config } from '../../config-types.js';
import type { Deps } from '../../deps.js';
import { safeEqual } from '../../lib/secrets.js';
import { PAYMENT_DESCRIPTION, PRICE } from './price.js';
import { agentApiUrls } from './urls.js';

export const X402_PROVIDER = 'x402';
const X402_VERSION = 2;
const SCHEME = 'exact';
/** How long the payer's authorization must stay valid for us to verify, publish and settle it. */
const MAX_TIMEOUT_SECONDS = 300;
const FACILITATOR_TIMEOUT_MS = 15_000;
/** A signed EIP-3009 payload is about 1 KB in base64; anything far larger is not one. */
export const MAX_PAYMENT_SIGNATURE_LENGTH = 16_384;

interface X402Requirements {
  scheme: string;
  network: string;
  asset: string;
  amount: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

export interface X402Payload {
  x402Version: number;
  accepted: X402Requirements;
  payload: Record<string, unknown>;
  resource?: unknown;
  extensions?: Record<string, unknown>;
}

interface X402Settlement {
  success: boolean;
  transaction: string;
  network: string;
  payer?: string;
  errorReason?: string;
}

/** The token amount of one generation: the AUD price times the configured rate (never a guessed one). */
const x402Amount = (x402: X402Config): string => ((BigInt(PRICE.amountMinor) * x402.audRate) / 100n).toString();

const bindingOf = (deps: Deps, x402: X402Config, requestId: string): string =>
  createHmac('sha256', deps.agentApi.keys.challengeKey)
    .update(['x402', x402.network, x402.asset, x402.payTo, x402Amount(x402), requestId].join('\n'))
    .digest('base64url');

/** The one offer (`accepts[0]`) for payment request `requestId`. */
function x402Requirements(deps: Deps, x402: X402Config, requestId: string): X402Requirements {
  return {
    scheme: SCHEME,
    network: x402.network,
    asset: x402.asset,
    amount: x402Amount(x402),
    payTo: x402.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    // name/version: the token's EIP-712 domain the payer signs over; request/binding: P2, P3.
    extra: { name: x402.assetName, version: x402.assetVersion, request: requestId, binding: bindingOf(deps, x402, requestId) },
  };
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');

/** The `PAYMENT-REQUIRED` header of a 402 (base64 JSON of the v2 PaymentRequired), or null without x402. */
export function paymentRequiredHeader(deps: Deps, requestId: string, message: string): string | null {
  const x402 = deps.config.x402;
  if (!x402) return null;
  return encode({
    x402Version: X402_VERSION,
    error: message,
    resource: { url: agentApiUrls(deps).generate, description: PAYMENT_DESCRIPTION, mimeType: 'application/json' },
    accepts: [x402Requirements(deps, x402, requestId)],
  });
}

/** A `PAYMENT-SIGNATURE` value decoded, or null when it is not base64 JSON of a v2 payload. */
export function decodePaymentSignature(value: string): X402Payload | null {
  try {
    const parsed = JSON.parse(Buffer.from(value.trim(), 'base64').toString('utf8')) as Partial<X402Payload> | null;
    if (!parsed || typeof parsed !== 'object' || parsed.x402Version !== X402_VERSION) return null;
    if (!parsed.accepted || typeof parsed.accepted !== 'object' || !parsed.payload || typeof parsed.payload !== 'object') {
      return null;
    }
    return parsed as X402Payload;
  } catch {
    return null;
  }
}

/**
 * The payment request a payload's offer names, when the offer is exactly one this service made
 * (same terms, a binding only we can compute); null otherwise.
 */
export function offeredRequestOf(deps: Deps, payload: X402Payload): { requestId: string; requirements: X402Requirements } | null {
  const x402 = deps.config.x402;
  const requestId = payload.accepted.extra?.request;
  if (!x402 || typeof requestId !== 'string') return null;
  const requirements = x402Requirements(deps, x402, requestId);
  const { accepted } = payload;
  const same =
    accepted.scheme === requirements.scheme &&
    accepted.network === requirements.network &&
    accepted.asset === requirements.asset &&
    accepted.amount === requirements.amount &&
    accepted.payTo === requirements.payTo &&
    typeof accepted.extra.binding === 'string' &&
    safeEqual(accepted.extra.binding, requirements.extra.binding as string);
  return same ? { requestId, requirements } : null;
}

/** The facilitator could not be reached or answered nonsense: nothing was verified or settled. */
export class FacilitatorUnavailable extends Error {}

async function callFacilitator<T>(
  x402: X402Config,
  operation: 'verify' | 'settle',
  body: unknown,
  accept: (v: unknown) => v is T,
) {
  let response: Response;
  try {
    response = await fetch(`${x402.facilitatorUrl}/${operation}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(FACILITATOR_TIMEOUT_MS),
    });
  } catch (err) {
    throw new FacilitatorUnavailable(`x402 facilitator /${operation} unreachable: ${(err as Error).message}`);
  }
  // A refusal comes back as 200 or 400 with the answer's shape; anything else is the facilitator's failure.
  const answer: unknown = await response.json().catch(() => null);
  if ((response.ok || response.status === 400) && accept(answer)) return answer;
  throw new FacilitatorUnavailable(`x402 facilitator /${operation} answered ${response.status}`);
}

const isVerifyAnswer = (v: unknown): v is { isValid: boolean; invalidReason?: string; payer?: string } =>
  typeof v === 'object' && v !== null && typeof (v as { isValid?: unknown }).isValid === 'boolean';
const isSettleAnswer = (v: unknown): v is X402Settlement =>
  typeof v === 'object' && v !== null && typeof (v as { success?: unknown }).success === 'boolean';

/** The body of both facilitator calls: the signed payment and the terms it must meet. */
const facilitatorBody = (paymentPayload: X402Payload, paymentRequirements: X402Requirements) => ({
  x402Version: X402_VERSION,
  paymentPayload,
  paymentRequirements,
});

/** `POST /verify`: is the signed payment valid for these terms (signature, balance, time, unused nonce)? */
export const verifyPayment = (x402: X402Config, payload: X402Payload, requirements: X402Requirements) =>
  callFacilitator(x402, 'verify', facilitatorBody(payload, requirements), isVerifyAnswer);

/** `POST /settle`: execute the transfer; `success: false` with `errorReason` when it did not happen. */
export const settlePayment = (x402: X402Config, payload: X402Payload, requirements: X402Requirements) =>
  callFacilitator(x402, 'settle', facilitatorBody(payload, requirements), isSettleAnswer);

/** The `PAYMENT-RESPONSE` header of a paid 200 (and of its identical replays). */
export const paymentResponseHeader = (settlement: { transaction: string; network: string; payer: string }) =>
  encode({ success: true, transaction: settlement.transaction, network: settlement.network, payer: settlement.payer });

/** The x402 offer as `x-payment-info` and the discovery document list it. */
export function x402Offer(x402: X402Config) {
  return {
    method: 'x402',
    intent: 'charge',
    scheme: SCHEME,
    network: x402.network,
    asset: x402.asset,
    amount: x402Amount(x402),
    payTo: x402.payTo,
    description: `${PRICE.amount} ${PRICE.displayCurrency} per successful generation, paid in tokens at a fixed rate (x402 v2, ${SCHEME})`,
  };
}
