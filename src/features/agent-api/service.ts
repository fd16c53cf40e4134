/**
 * Paid entity generation: validate → 402 with a payment intent bound to the request → verify the
 * paid intent with the processor → claim it atomically → speak the name, store, publish
 * (publish.ts). Each numbered property of docs/entities.md ("What keeps paid requests safe") is
 * marked where it is enforced (P1…P16). Also deletion with the receipt's token.
 */
import type { Deps } from '../../deps.js';
import type { AppError } from '../../errors.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/clock.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import { untrustedScriptMix } from '../../lib/scripts.js';
import { deleteProfile, deletionTokenMatches, findNameHolder, findProfile } from '../profiles/service.js';
import { slugify } from '../profiles/slug.js';
import { agentError, invalidRequest } from './agent-errors.js';
import type { PaymentCredential } from './payment-header.js';
import { HEADER_NAME } from './payment-header.js';
import { type AdmitUnpaid, createInstruction, paymentRequiredFor } from './payment-required.js';
import { type Published, publish, replayPublished } from './publish.js';
import { PURPOSE } from './price.js';
import { refundPaymentRequest } from './refund.js';
import { claimPaymentRequest, findPaymentRequestByIntent, moveRequestState, type PaymentRequestRow, renewClaim } from './repo.js';
import { type GenerationRequest, invalidName, refuseUnusableUrls, takenName } from './request-checks.js';
import { decodeCredential } from './mpp.js';
import { type LocatedRequest, requestMismatch, rowForStandardCredential } from './standard-credential.js';
import { rowForX402Payment, x402Settler, X402SettlementRefused } from './x402-settlement.js';
import { decodePaymentSignature, X402_PROVIDER, type X402Payload } from './x402.js';
import { describeProblems, summarizeReceived, type ValidationProblems } from './validation.js';

export type { Published } from './publish.js';
const GENERATE_PATH = '/api/entities/generate';
/**
 * A claim not renewed for this long is presumed dead (its process crashed) and may be taken over,
 * so the agent's retry succeeds within seconds. A live holder renews it every CLAIM_HEARTBEAT_MS.
 */
export const CLAIM_LEASE_MS = 15_000;
export const CLAIM_HEARTBEAT_MS = 5_000;

/** SHA-256 of method, path and canonical JSON body: what an intent is bound to (P2). */
export const requestFingerprint = (body: unknown): string => sha256Hex(`POST\n${GENERATE_PATH}\n${canonicalJson(body)}`);

/**
 * Handles one `POST /api/entities/generate`. Validation always comes first (P8); without a valid
 * credential the answer is a 402 with a fresh intent bound to this exact body (P2, P10, P14, P15);
 * with one, the intent is verified with the processor (P3, P4, P5), claimed atomically (P1, P6)
 * and the entity published, or the failure retried for free / refunded once (P9). An identical
 * retry after success replays the same 200 (P7). Every other answer is thrown as an agent API
 * `AppError` (agent-errors.ts): 400, 402, 409, 410, 429, 502, 503.
 */
export async function generateEntity(
  deps: Deps,
  input: { body: unknown; credential: PaymentCredential; admitUnpaid: AdmitUnpaid },
): Promise<Published> {
  const problems = deps.agentApi.validate(input.body);
  if (problems) throw invalidRequest(problems, describeProblems(problems));
  const body = input.body as GenerationRequest;
  const slug = slugify(body.name);
  if (slug === '') throw invalidName(body.name, 'The request is invalid: name must contain at least one letter or digit.', deps);
  const taken = takenName(deps, body.name, slug);
  const mixed = untrustedScriptMix(body.name);
  if (mixed) {
    // "Оrbit" with a Cyrillic О: when it imitates a published name, say which.
    if (await findNameHolder(deps, slug)) throw await taken();
    throw invalidName(
      body.name,
      `The request is invalid: name mixes ${mixed.join(' and ')} letters, which makes look-alikes of other names; write it in one script.`,
      deps,
    );
  }
  await refuseUnusableUrls(deps, body);
  if (input.credential.kind === 'invalid') {
    const problems: ValidationProblems = {
      missing: [],
      invalid: [
        {
          field: HEADER_NAME,
          received: summarizeReceived(input.credential.received),
          allowed: [
            'one header: mpp; reference="<payment_intent_id>"',
            'one header: Payment <base64url credential>',
            ...(deps.config.x402 ? ['one header: PAYMENT-SIGNATURE <base64 x402 payload>'] : []),
          ],
        },
      ],
    };
    throw invalidRequest(
      problems,
      `The request is invalid: send one credential, either ${HEADER_NAME}: mpp; reference="pi_…" or a Payment credential (in Authorization or ${HEADER_NAME}).`,
    );
  }
  const fingerprint = requestFingerprint(body);

  const credential = await decoded(input.credential);
  if (credential.kind === 'absent' || credential.kind === 'unreadable') {
    if (await findNameHolder(deps, slug)) throw await taken();
    return createInstruction(
      deps,
      fingerprint,
      input.admitUnpaid,
      credential.kind === 'absent'
        ? 'Payment required: pay the intent, then repeat this request.'
        : 'The Payment credential could not be read (it must be base64url JSON of a challenge and a payload). Pay the new challenge, then repeat this request.',
    );
  }

  const located =
    credential.kind === 'reference'
      ? await rowForReference(deps, credential.id)
      : credential.kind === 'x402'
        ? await rowForX402Payment(deps, credential.payload, fingerprint)
        : await rowForStandardCredential(deps, credential.credential, fingerprint);
  // Unknown or another processor's reference, or a credential we did not issue: the same answer as
  // an unpaid request (P3, P14).
  if ('refusal' in located) {
    if (await findNameHolder(deps, slug)) throw await taken();
    return createInstruction(deps, fingerprint, input.admitUnpaid, located.refusal);
  }
  const row = located.row;
  if (!safeEqual(row.fingerprint, fingerprint)) throw requestMismatch();
  if (row.state === 'published') return replayPublished(deps, row);
  if (row.state === 'claimed' && Date.parse(row.claimed_at ?? '') > deps.clock.now().getTime() - CLAIM_LEASE_MS) {
    throw inProgress();
  }
  if (row.state === 'refunding' || row.state === 'refunded' || row.state === 'canceled') {
    if (await findNameHolder(deps, slug)) throw await taken();
    const why = row.state === 'canceled' ? 'That payment instruction expired.' : 'That payment was refunded.';
    return createInstruction(deps, fingerprint, input.admitUnpaid, `${why} Pay this new intent, then repeat the request.`);
  }
  const pending = { row, body, slug, fingerprint, admitUnpaid: input.admitUnpaid, taken };
  if (credential.kind !== 'x402') return settlePending(deps, pending);
  try {
    return await claimAndPublish(deps, pending, { method: X402_PROVIDER, settle: x402Settler(deps, row, credential.payload) });
  } catch (err) {
    if (!(err instanceof X402SettlementRefused)) throw err;
    if (await findNameHolder(deps, slug)) throw await taken();
    return createInstruction(
      deps,
      fingerprint,
      input.admitUnpaid,
      `The x402 payment could not be settled (${err.message}). Sign the new offer, then repeat this request.`,
    );
  }
}

/** The credential with a standard one decoded (a valid request never carries an invalid header this far). */
async function decoded(
  credential: PaymentCredential,
): Promise<
  | Exclude<PaymentCredential, { kind: 'encoded' } | { kind: 'invalid' } | { kind: 'x402-encoded' }>
  | { kind: 'x402'; payload: X402Payload }
> {
  if (credential.kind === 'invalid') throw new Error('an invalid payment header is refused before this');
  if (credential.kind === 'x402-encoded') {
    const payload = decodePaymentSignature(credential.value);
    return payload ? { kind: 'x402', payload } : { kind: 'unreadable' };
  }
  if (credential.kind !== 'encoded') return credential;
  const standard = await decodeCredential(credential.value);
  return standard ? { kind: 'standard', credential: standard } : { kind: 'unreadable' };
}

async function rowForReference(deps: Deps, reference: string): Promise<LocatedRequest> {
  const row = await findPaymentRequestByIntent(deps.db.kysely, reference);
  if (!row || row.provider !== deps.payments.name) {
    return { refusal: 'Payment required: pay the intent, then repeat this request.' };
  }
  return { row };
}

const inProgress = () =>
  agentError(
    'payment_in_progress',
    'This payment is being used to publish right now. Retry the same request in a moment to get the result.',
    { retryAfter: 2 },
  );

async function settlePending(
  deps: Deps,
  input: {
    row: PaymentRequestRow;
    body: GenerationRequest;
    slug: string;
    fingerprint: string;
    admitUnpaid: AdmitUnpaid;
    taken: (addendum?: string) => Promise<AppError>;
  },
): Promise<Published> {
  const { row, fingerprint } = input;
  const reference = row.payment_intent_id;
  const now = deps.clock.now();
  const intent = await deps.payments.retrieveIntent(reference);
  const fresh = (message: string) => createInstruction(deps, fingerprint, input.admitUnpaid, message);
  if (!intent) return fresh('Payment required: pay the intent, then repeat this request.');

  // P3, P4: everything that matters is read from the processor with our own key.
  const genuine =
    intent.metadata.purpose === PURPOSE &&
    intent.metadata.request_id === row.id &&
    safeEqual(intent.metadata.request_fingerprint ?? '', fingerprint) &&
    intent.amount === row.amount_minor &&
    intent.currency === row.currency &&
    intent.livemode === deps.payments.livemode &&
    intent.livemode === (row.livemode === 1);
  if (!genuine) {
    deps.logger.warn({ payment_intent: reference }, 'payment intent does not match the request it was issued for');
    return fresh('Payment required: the referenced payment does not match this request; pay this new intent.');
  }
  // P5: a reversed payment never counts.
  if (intent.amountRefunded > 0 || intent.disputed) {
    await moveRequestState(deps.db.kysely, {
      paymentIntentId: reference,
      from: ['pending'],
      to: 'refunded',
      now: now.toISOString(),
    });
    return fresh('That payment was refunded or disputed. Pay this new intent, then repeat the request.');
  }
  const settled = intent.status === 'succeeded' && intent.amountReceived >= row.amount_minor;
  if (!settled) {
    if (intent.status === 'canceled' || now.getTime() > Date.parse(row.expires_at)) {
      // P10: an expired instruction is cancelled so it can never be paid late.
      const current = intent.status === 'canceled' ? intent : await deps.payments.cancelIntent(reference);
      if (current.status !== 'succeeded') {
        await moveRequestState(deps.db.kysely, {
          paymentIntentId: reference,
          from: ['pending'],
          to: 'canceled',
          now: now.toISOString(),
        });
        return fresh('That payment instruction expired. Pay this new intent, then repeat the request.');
      }
      return settlePending(deps, input);
    }
    throw await paymentRequiredFor(
      deps,
      row,
      intent,
      intent.status === 'processing'
        ? 'The payment is still processing. Repeat the request in a few seconds.'
        : 'The payment has not been completed yet. Pay the intent, then repeat this request.',
      intent.status === 'processing' ? { retryAfter: 5 } : {},
    );
  }

  return claimAndPublish(deps, input, { method: intent.paymentMethodType ?? 'card' });
}

type PendingRequest = Parameters<typeof settlePending>[1];

/** A paid request's name check, atomic claim (P1, P6) and publication; `settle` takes an x402 payment on the way. */
async function claimAndPublish(
  deps: Deps,
  input: PendingRequest,
  payment: { method: string; settle?: () => Promise<string> },
): Promise<Published> {
  const { row, body, slug } = input;
  const reference = row.payment_intent_id;
  const now = deps.clock.now();
  if (await findNameHolder(deps, slug)) {
    // The name may have gone to this very payment: an identical retry running at the same time
    // published while this one was asking the processor. That is a success to replay (P6, P7).
    const latest = await findPaymentRequestByIntent(deps.db.kysely, reference);
    if (latest?.state === 'published') return replayPublished(deps, latest);
    // Paid, but the name went to someone else meanwhile: give the money back (P9).
    await refundPaymentRequest(deps, reference, 'name taken before publishing');
    throw await input.taken(' Your payment for this request has been refunded.');
  }
  const won = await claimPaymentRequest(deps.db.kysely, {
    paymentIntentId: reference,
    now: now.toISOString(),
    staleBefore: new Date(now.getTime() - CLAIM_LEASE_MS).toISOString(),
  });
  if (!won) {
    const latest = await findPaymentRequestByIntent(deps.db.kysely, reference);
    if (latest?.state === 'published') return replayPublished(deps, latest);
    throw inProgress();
  }
  const heartbeat = keepClaimAlive(deps, reference, now.toISOString());
  try {
    return await publish(deps, {
      row,
      body,
      slug,
      paymentMethod: payment.method,
      ...(payment.settle ? { settle: payment.settle } : {}),
      taken: input.taken,
    });
  } finally {
    heartbeat.stop();
  }
}

/** Renews this process's claim every CLAIM_HEARTBEAT_MS until stopped (or taken over). */
function keepClaimAlive(deps: Deps, paymentIntentId: string, claimedAt: string): { stop(): void } {
  let current = claimedAt;
  const timer = setInterval(() => {
    const now = isoNow(deps.clock);
    renewClaim(deps.db.kysely, { paymentIntentId, claimedAt: current, now }).then(
      (renewed) => {
        if (renewed) current = now;
        else clearInterval(timer);
      },
      (err: unknown) => deps.logger.warn({ err, payment_intent: paymentIntentId }, 'could not renew a payment claim'),
    );
  }, CLAIM_HEARTBEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

const alreadyDeleted = () => agentError('gone', 'This entity was already deleted.');

/**
 * Deletes the profile at `slug` when `token` is its receipt's deletion token (compared by hash, in
 * constant time, P12): the page, the machine-readable document and the audio go; the URLs answer
 * 410 afterwards and the slug is never reissued. Throws 404 `not_found`, 410 `gone`, 401
 * `unauthorized` (no token) or 403 `forbidden` (another token).
 */
export async function deleteEntity(
  deps: Pick<Deps, 'db' | 'clock' | 'blobs'>,
  slug: string,
  token: string | undefined,
): Promise<void> {
  const found = await findProfile(deps, slug);
  if (found.kind === 'not_found') throw agentError('not_found', 'No entity has this slug.');
  if (found.kind === 'gone') throw alreadyDeleted();
  if (!token) throw agentError('unauthorized', 'Send the header Deletion-Token with the receipt.deletion_token.');
  if (!deletionTokenMatches(found.entity, token)) {
    throw agentError('forbidden', 'The deletion token does not match this entity.');
  }
  if (!(await deleteProfile(deps, found.entity))) throw alreadyDeleted();
}
