/**
 * The Machine Payments Protocol side of paid generation (draft-httpauth-payment): the
 * `WWW-Authenticate: Payment` challenges every 402 carries, the check of a standard credential
 * that answers one, and the `Payment-Receipt` of a paid 200. The codecs (challenge, credential,
 * receipt, the HMAC-bound challenge id) are `mppx`'s own, so what we send is what its clients read.
 *
 * Each challenge names the payment request (our row, with the body's fingerprint) in its `opaque`
 * parameter, and its id is an HMAC over every parameter with a key only this service holds: a
 * credential for one body cannot be replayed on another (P2), and a forged one is refused (P3).
 * What happens after the check is the reference flow's own code, so P1–P16 hold for both paths.
 */
import type { Challenge, Credential } from 'mppx';
import { PAYMENT_INTENT_ID, type PaymentIntentView } from '../../integrations/payments/provider.js';
import type { Deps } from '../../deps.js';
import { agentApiUrls } from './urls.js';
import { x402Offer } from './x402.js';
import { PAYMENT_DESCRIPTION, PRICE } from './price.js';

export type MppMethod = 'sandbox' | 'stripe';

/**
 * `mppx` is loaded on the first paid-path request, not at boot: it and its cryptography cost
 * resident memory (docs/performance.md) that a server which never meets an agent should not carry.
 */
let library: Promise<typeof import('mppx')> | undefined;
const mppx = () => (library ??= import('mppx'));

/** Loads `mppx` ahead of the first 402 (WARM_UP): that request would otherwise wait for it. */
export async function loadMpp(): Promise<void> {
  await mppx();
}
const INTENT = 'charge';
const SHARED_PAYMENT_TOKEN = /^spt_[A-Za-z0-9_]{4,250}$/;

export const realmOf = (deps: Deps): string => new URL(agentApiUrls(deps).site).hostname;

/** The standard methods this deployment accepts: the one its processor can settle. */
export function offeredMethods(deps: Deps): MppMethod[] {
  if (deps.payments.name === 'sandbox') return ['sandbox'];
  return deps.payments.chargeSharedToken ? ['stripe'] : [];
}

/** `x-payment-info` of the paid operation (the draft's multi-offer form), in both OpenAPI documents; x402's offer last when configured. */
export const paymentInfo = (deps: Deps) => ({
  offers: [
    ...offeredMethods(deps).map((method) => ({
      method,
      intent: INTENT,
      amount: String(PRICE.amountMinor),
      currency: PRICE.currency,
      description: `${PRICE.amount} ${PRICE.displayCurrency} per successful generation (${PAYMENT_DESCRIPTION})`,
    })),
    ...(deps.config.x402 ? [x402Offer(deps.config.x402)] : []),
  ],
});

/** The `request` of each method's challenge, as `x-payment-info` and the discovery document describe it too. */
export function methodRequest(deps: Deps, method: MppMethod, intent?: PaymentIntentView) {
  const base = { amount: String(PRICE.amountMinor), currency: PRICE.currency, decimals: PRICE.decimals };
  if (method === 'stripe') {
    return { ...base, methodDetails: { networkId: deps.config.stripeNetworkId, paymentMethodTypes: ['card'] } };
  }
  return {
    ...base,
    methodDetails: {
      reference: intent?.id ?? '',
      clientSecret: intent?.clientSecret ?? '',
      confirmUrl: intent ? agentApiUrls(deps).sandboxConfirm(intent.id) : '',
    },
  };
}

/** One challenge per offered method for the payment request `requestId`, expiring with its instruction. */
export async function challengesFor(
  deps: Deps,
  input: { requestId: string; expiresAt: string; intent: PaymentIntentView },
): Promise<Challenge.Challenge[]> {
  const { Challenge } = await mppx();
  return offeredMethods(deps).map((method) =>
    Challenge.from({
      realm: realmOf(deps),
      method,
      intent: INTENT,
      request: methodRequest(deps, method, input.intent),
      description: PAYMENT_DESCRIPTION,
      expires: input.expiresAt,
      meta: { request: input.requestId },
      secretKey: deps.agentApi.keys.challengeKey,
    }),
  );
}

/** The `WWW-Authenticate` value: every challenge, comma-separated (RFC 9110 §11.6.1). */
export async function wwwAuthenticate(challenges: Challenge.Challenge[]): Promise<string> {
  const { Challenge } = await mppx();
  return challenges.map((challenge) => Challenge.serialize(challenge)).join(', ');
}

/** A `Payment <base64url>` credential decoded, or null when it is not one (too long, not base64url JSON, wrong shape). */
export async function decodeCredential(value: string): Promise<Credential.Credential | null> {
  const { Credential } = await mppx();
  try {
    return Credential.deserialize(value);
  } catch {
    return null;
  }
}

/** A credential carried as an object (MCP's `_meta`), checked through the same wire codec. */
export async function credentialFromObject(value: unknown): Promise<Credential.Credential | null> {
  const { Credential } = await mppx();
  try {
    return Credential.deserialize(Credential.serialize(value as Credential.Credential));
  } catch {
    return null;
  }
}

export type CredentialCheck =
  | { ok: true; method: 'sandbox'; requestId: string; reference: string; challengeId: string }
  | { ok: true; method: 'stripe'; requestId: string; token: string; challengeId: string }
  | { ok: false; message: string };

const refuse = (message: string): CredentialCheck => ({ ok: false, message });

function requestIdOf(challenge: Challenge.Challenge): string | null {
  if (!challenge.opaque) return null;
  try {
    const meta = JSON.parse(Buffer.from(challenge.opaque, 'base64url').toString('utf8')) as { request?: unknown };
    return typeof meta.request === 'string' ? meta.request : null;
  } catch {
    return null;
  }
}

/**
 * Checks that a standard credential answers a challenge this service issued (HMAC id, realm,
 * method, intent), that the challenge is still open, and that its payload has the method's shape.
 * It proves nothing about payment: the caller still settles with the processor.
 */
export async function checkCredential(deps: Deps, credential: Credential.Credential, now: Date): Promise<CredentialCheck> {
  const { Challenge } = await mppx();
  const { challenge } = credential;
  const fresh = 'Payment required: pay the new challenge, then repeat this request.';
  if (!Challenge.verify(challenge, { secretKey: deps.agentApi.keys.challengeKey }) || challenge.realm !== realmOf(deps)) {
    return refuse(`The credential answers a challenge this service did not issue. ${fresh}`);
  }
  const method = offeredMethods(deps).find((name) => name === challenge.method);
  if (!method || challenge.intent !== INTENT) return refuse(`Method ${challenge.method} is not accepted here. ${fresh}`);
  if (!challenge.expires || Date.parse(challenge.expires) <= now.getTime()) {
    return refuse(`That payment challenge expired. ${fresh}`);
  }
  const requestId = requestIdOf(challenge);
  if (!requestId) return refuse(`The challenge names no payment request. ${fresh}`);
  if (method === 'sandbox') {
    const reference = (credential.payload as { reference?: unknown } | null)?.reference;
    const issued = (challenge.request as { methodDetails?: { reference?: unknown } }).methodDetails?.reference;
    if (typeof reference !== 'string' || !PAYMENT_INTENT_ID.test(reference) || reference !== issued) {
      return refuse(`The credential's payload is not {"reference": "<the challenge's intent>"}. ${fresh}`);
    }
    return { ok: true, method, requestId, reference, challengeId: challenge.id };
  }
  const token = (credential.payload as { spt?: unknown } | null)?.spt;
  if (typeof token !== 'string' || !SHARED_PAYMENT_TOKEN.test(token)) {
    return refuse(`The credential's payload is not {"spt": "spt_…"}. ${fresh}`);
  }
  return { ok: true, method, requestId, token, challengeId: challenge.id };
}

/** The `Payment-Receipt` header of a paid 200 (and of its identical replays). */
export async function paymentReceipt(method: string, reference: string, timestamp: string): Promise<string> {
  const { Receipt } = await mppx();
  return Receipt.serialize(Receipt.from({ method, reference, status: 'success', timestamp }));
}
