/**
 * Paid entity generation: validate → 402 with a payment intent bound to the request → verify the
 * paid intent with the processor → claim it atomically → speak the name, store, publish.
 * Each numbered property of docs/entities.md ("What keeps paid requests safe") is marked where it
 * is enforced (P1…P16).
 */
import { withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import { outboundRefusal } from '../../integrations/outbound-http.js';
import type { PaymentIntentView } from '../../integrations/payments/provider.js';
import { enqueue } from '../../jobs/queue.js';
import { canonicalJson } from '../../lib/canonical-json.js';
import { isoNow } from '../../lib/clock.js';
import { confusableSkeleton } from '../../lib/confusables.js';
import { newId } from '../../lib/ids.js';
import { safeEqual, sha256Hex } from '../../lib/secrets.js';
import type { VoiceStyle } from '../../speech/synthesizer.js';
import { agentError, invalidRequest, paymentRequired, publishingFailed, temporarilyUnavailable } from './agent-errors.js';
import type { EntitiesContext } from './context.js';
import { entityCallbackJob } from './callback-job.js';
import type { PaymentCredential } from './payment-header.js';
import { HEADER_NAME } from './payment-header.js';
import {
  claimPaymentRequest,
  type EntityRow,
  findEntityById,
  findPaymentRequestByIntent,
  insertEntity,
  insertPaymentRequest,
  moveRequestState,
  type PaymentRequestRow,
  renewClaim,
  nameHolder,
} from './repo.js';
import { PAYMENT_DESCRIPTION, PRICE, PURPOSE } from './price.js';
import { challengesFor, decodeCredential, paymentReceipt, wwwAuthenticate } from './mpp.js';
import { type LocatedRequest, pendingRequestRow, requestMismatch, rowForStandardCredential } from './standard-credential.js';
import { speechLanguageFor, untrustedScriptMix } from '../../lib/scripts.js';
import { slugify, slugPath } from './slug.js';
import { describeProblems, type InvalidField, summarizeReceived, type ValidationProblems } from './validation.js';

export type { EntityRow } from './repo.js';
import type { AppError } from '../../errors.js';
import { isUniqueViolation } from '../../db/errors.js';

export { PRICE } from './price.js';
const GENERATE_PATH = '/api/entities/generate';
/**
 * A claim not renewed for this long is presumed dead (its process crashed) and may be taken over,
 * so the agent's retry succeeds within seconds. A live holder renews it every CLAIM_HEARTBEAT_MS.
 */
export const CLAIM_LEASE_MS = 15_000;
export const CLAIM_HEARTBEAT_MS = 5_000;
/** Failed generations after payment before the payment is refunded (P9). */
export const MAX_GENERATION_ATTEMPTS = 3;

export interface GenerationRequest {
  name: string;
  entity_type: string;
  description: string;
  operator: string;
  visibility: string;
  avatar_url?: string;
  source_url?: string;
  voice_style?: VoiceStyle;
  language?: string;
  intro?: string;
  external_metadata?: Record<string, unknown>;
  agent_id?: string;
  callback_url?: string;
}

export interface PaymentInstruction {
  amount: string;
  currency: string;
  address: string;
  reference: string;
  expires_at: string;
  processor: string;
  publishable_key?: string;
  confirm_url?: string;
}

export interface PublishedBody {
  status: 'published';
  payment_status: 'paid';
  entity: {
    name: string;
    entity_type: string;
    profile_url: string;
    machine_readable_url: string;
    audio_url: string;
    avatar_url: string;
    intro: string;
    visibility: string;
    created_via: 'agent_api';
  };
  receipt: { amount: string; currency: string; method: string; transaction_id: string; deletion_token: string };
}

/** The 200 of a generation; `replayed` when it repeats an earlier success (P7). */
export interface Published {
  body: PublishedBody;
  replayed: boolean;
  /** The `Payment-Receipt` header (base64url JSON), the same on every replay. */
  receipt: string;
}

/** Rejects (throws) when the unpaid path is over its rate limit (P15); called before any intent is made. */
export type AdmitUnpaid = () => Promise<void>;

/** SHA-256 of method, path and canonical JSON body: what an intent is bound to (P2). */
export const requestFingerprint = (body: unknown): string => sha256Hex(`POST\n${GENERATE_PATH}\n${canonicalJson(body)}`);

const invalidName = (name: string, message: string, context: EntitiesContext) =>
  invalidRequest(
    {
      missing: [],
      invalid: [{ field: 'name', received: summarizeReceived(name), allowed: [context.schema.properties.name['x-rule']] }],
    },
    message,
  );

/**
 * The 400 for a name already published, or one that looks the same (its confusable skeleton,
 * UTS #39, is a published name's): the message names the profile that holds it.
 */
const takenName =
  (context: EntitiesContext, name: string, slug: string) =>
  async (addendum = ''): Promise<AppError> => {
    const holder = (await nameHolder(context.db.kysely, slug)) ?? slug;
    const what =
      holder === slug
        ? `the name "${name}" is already taken (profile /e/${slugPath(holder)})`
        : `the name "${name}" looks the same as a published one (profile /e/${slugPath(holder)})`;
    return invalidName(name, `The request is invalid: ${what}.${addendum}`, context);
  };

/**
 * A `callback_url` or `avatar_url` the outbound rules would refuse (not https, a private or
 * loopback address, a name resolving to one) is a 400 now, before any 402: nobody pays for a
 * request that cannot be honoured. The avatar is only shown, never fetched, so its name is not
 * resolved; a callback's is (and again before every delivery).
 */
async function refuseUnusableUrls(context: EntitiesContext, body: GenerationRequest): Promise<void> {
  const allowPrivate = context.config.webhooks.allowPrivateUrls;
  const checks = [
    {
      field: 'callback_url',
      url: body.callback_url,
      resolve: true,
      allowed: 'a public https: URL (its host resolving to public addresses only)',
    },
    {
      field: 'avatar_url',
      url: body.avatar_url?.startsWith('https:') ? body.avatar_url : undefined,
      resolve: false,
      allowed: 'an https: URL on a public host, or a path on this site',
    },
  ];
  const invalid: InvalidField[] = [];
  const reasons: string[] = [];
  for (const check of checks) {
    if (check.url === undefined) continue;
    const refusal = await outboundRefusal(check.url, { allowPrivate, resolve: check.resolve });
    if (!refusal) continue;
    invalid.push({ field: check.field, received: summarizeReceived(check.url), allowed: [check.allowed] });
    reasons.push(`${check.field}: ${refusal.message}`);
  }
  if (invalid.length > 0) throw invalidRequest({ missing: [], invalid }, `The request is invalid: ${reasons.join(' ')}`);
}

/**
 * Handles one `POST /api/entities/generate`. Validation always comes first (P8); without a valid
 * credential the answer is a 402 with a fresh intent bound to this exact body (P2, P10, P14, P15);
 * with one, the intent is verified with the processor (P3, P4, P5), claimed atomically (P1, P6)
 * and the entity published, or the failure retried for free / refunded once (P9). An identical
 * retry after success replays the same 200 (P7). Every other answer is thrown as an agent API
 * `AppError` (agent-errors.ts): 400, 402, 409, 410, 429, 502, 503.
 */
export async function generateEntity(
  context: EntitiesContext,
  input: { body: unknown; credential: PaymentCredential; admitUnpaid: AdmitUnpaid },
): Promise<Published> {
  const problems = context.validate(input.body);
  if (problems) throw invalidRequest(problems, describeProblems(problems));
  const body = input.body as GenerationRequest;
  const slug = slugify(body.name);
  if (slug === '')
    throw invalidName(body.name, 'The request is invalid: name must contain at least one letter or digit.', context);
  const taken = takenName(context, body.name, slug);
  const mixed = untrustedScriptMix(body.name);
  if (mixed) {
    // "Оrbit" with a Cyrillic О: when it imitates a published name, say which.
    if (await nameHolder(context.db.kysely, slug)) throw await taken();
    throw invalidName(
      body.name,
      `The request is invalid: name mixes ${mixed.join(' and ')} letters, which makes look-alikes of other names; write it in one script.`,
      context,
    );
  }
  await refuseUnusableUrls(context, body);
  if (input.credential.kind === 'invalid') {
    const problems: ValidationProblems = {
      missing: [],
      invalid: [
        {
          field: HEADER_NAME,
          received: summarizeReceived(input.credential.received),
          allowed: ['one header: mpp; reference="<payment_intent_id>"', 'one header: Payment <base64url credential>'],
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
    if (await nameHolder(context.db.kysely, slug)) throw await taken();
    return createInstruction(
      context,
      fingerprint,
      input.admitUnpaid,
      credential.kind === 'absent'
        ? 'Payment required: pay the intent, then repeat this request.'
        : 'The Payment credential could not be read (it must be base64url JSON of a challenge and a payload). Pay the new challenge, then repeat this request.',
    );
  }

  const located =
    credential.kind === 'reference'
      ? await rowForReference(context, credential.id)
      : await rowForStandardCredential(context, credential.credential, fingerprint);
  // Unknown or another processor's reference, or a credential we did not issue: the same answer as
  // an unpaid request (P3, P14).
  if ('refusal' in located) {
    if (await nameHolder(context.db.kysely, slug)) throw await taken();
    return createInstruction(context, fingerprint, input.admitUnpaid, located.refusal);
  }
  const row = located.row;
  if (!safeEqual(row.fingerprint, fingerprint)) throw requestMismatch();
  if (row.state === 'published') return replayPublished(context, row);
  if (row.state === 'claimed' && Date.parse(row.claimed_at ?? '') > context.clock.now().getTime() - CLAIM_LEASE_MS) {
    throw inProgress();
  }
  if (row.state === 'refunding' || row.state === 'refunded' || row.state === 'canceled') {
    if (await nameHolder(context.db.kysely, slug)) throw await taken();
    const why = row.state === 'canceled' ? 'That payment instruction expired.' : 'That payment was refunded.';
    return createInstruction(context, fingerprint, input.admitUnpaid, `${why} Pay this new intent, then repeat the request.`);
  }
  return settlePending(context, { row, body, slug, fingerprint, admitUnpaid: input.admitUnpaid, taken });
}

/** The credential with a standard one decoded (a valid request never carries an invalid header this far). */
async function decoded(
  credential: PaymentCredential,
): Promise<Exclude<PaymentCredential, { kind: 'encoded' } | { kind: 'invalid' }>> {
  if (credential.kind === 'invalid') throw new Error('an invalid payment header is refused before this');
  if (credential.kind !== 'encoded') return credential;
  const standard = await decodeCredential(credential.value);
  return standard ? { kind: 'standard', credential: standard } : { kind: 'unreadable' };
}

async function rowForReference(context: EntitiesContext, reference: string): Promise<LocatedRequest> {
  const row = await findPaymentRequestByIntent(context.db.kysely, reference);
  if (!row || row.provider !== context.payments.name) {
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
  context: EntitiesContext,
  input: {
    row: PaymentRequestRow;
    body: GenerationRequest;
    slug: string;
    fingerprint: string;
    admitUnpaid: AdmitUnpaid;
    taken: (addendum?: string) => Promise<AppError>;
  },
): Promise<Published> {
  const { row, body, slug, fingerprint } = input;
  const reference = row.payment_intent_id;
  const now = context.clock.now();
  const intent = await context.payments.retrieveIntent(reference);
  const fresh = (message: string) => createInstruction(context, fingerprint, input.admitUnpaid, message);
  if (!intent) return fresh('Payment required: pay the intent, then repeat this request.');

  // P3, P4: everything that matters is read from the processor with our own key.
  const genuine =
    intent.metadata.purpose === PURPOSE &&
    intent.metadata.request_id === row.id &&
    safeEqual(intent.metadata.request_fingerprint ?? '', fingerprint) &&
    intent.amount === row.amount_minor &&
    intent.currency === row.currency &&
    intent.livemode === context.payments.livemode &&
    intent.livemode === (row.livemode === 1);
  if (!genuine) {
    context.logger.warn({ payment_intent: reference }, 'payment intent does not match the request it was issued for');
    return fresh('Payment required: the referenced payment does not match this request; pay this new intent.');
  }
  // P5: a reversed payment never counts.
  if (intent.amountRefunded > 0 || intent.disputed) {
    await moveRequestState(context.db.kysely, {
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
      const current = intent.status === 'canceled' ? intent : await context.payments.cancelIntent(reference);
      if (current.status !== 'succeeded') {
        await moveRequestState(context.db.kysely, {
          paymentIntentId: reference,
          from: ['pending'],
          to: 'canceled',
          now: now.toISOString(),
        });
        return fresh('That payment instruction expired. Pay this new intent, then repeat the request.');
      }
      return settlePending(context, input);
    }
    throw await paymentRequiredFor(
      context,
      row,
      intent,
      intent.status === 'processing'
        ? 'The payment is still processing. Repeat the request in a few seconds.'
        : 'The payment has not been completed yet. Pay the intent, then repeat this request.',
      intent.status === 'processing' ? { retryAfter: 5 } : {},
    );
  }

  if (await nameHolder(context.db.kysely, slug)) {
    // The name may have gone to this very payment: an identical retry running at the same time
    // published while this one was asking the processor. That is a success to replay (P6, P7).
    const latest = await findPaymentRequestByIntent(context.db.kysely, reference);
    if (latest?.state === 'published') return replayPublished(context, latest);
    // Paid, but the name went to someone else meanwhile: give the money back (P9).
    await refundPaymentRequest(context, reference, 'name taken before publishing');
    throw await input.taken(' Your payment for this request has been refunded.');
  }
  const won = await claimPaymentRequest(context.db.kysely, {
    paymentIntentId: reference,
    now: now.toISOString(),
    staleBefore: new Date(now.getTime() - CLAIM_LEASE_MS).toISOString(),
  });
  if (!won) {
    const latest = await findPaymentRequestByIntent(context.db.kysely, reference);
    if (latest?.state === 'published') return replayPublished(context, latest);
    throw inProgress();
  }
  const heartbeat = keepClaimAlive(context, reference, now.toISOString());
  try {
    return await publish(context, { row, body, slug, intent, taken: input.taken });
  } finally {
    heartbeat.stop();
  }
}

/** Renews this process's claim every CLAIM_HEARTBEAT_MS until stopped (or taken over). */
function keepClaimAlive(context: EntitiesContext, paymentIntentId: string, claimedAt: string): { stop(): void } {
  let current = claimedAt;
  const timer = setInterval(() => {
    const now = isoNow(context.clock);
    renewClaim(context.db.kysely, { paymentIntentId, claimedAt: current, now }).then(
      (renewed) => {
        if (renewed) current = now;
        else clearInterval(timer);
      },
      (err: unknown) => context.logger.warn({ err, payment_intent: paymentIntentId }, 'could not renew a payment claim'),
    );
  }, CLAIM_HEARTBEAT_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Issues a new intent bound to `fingerprint` and answers 402 with it (always throws). */
async function createInstruction(
  context: EntitiesContext,
  fingerprint: string,
  admitUnpaid: AdmitUnpaid,
  message: string,
): Promise<never> {
  await admitUnpaid();
  // The agent pays next: load the speech engine meanwhile (not at boot: most servers never publish one).
  context.speech.prepare?.();
  context.metrics.payments.inc({ outcome: 'instruction_issued' });
  const id = newId();
  const now = context.clock.now();
  const expiresAt = new Date(now.getTime() + context.config.entityInstructionTtlSeconds * 1000).toISOString();
  let intent: PaymentIntentView;
  try {
    intent = await context.payments.createIntent({
      amountMinor: PRICE.amountMinor,
      currency: PRICE.currency,
      description: PAYMENT_DESCRIPTION,
      metadata: { purpose: PURPOSE, request_fingerprint: fingerprint, request_id: id, expires_at: expiresAt },
      idempotencyKey: `pi_create:${id}`,
    });
  } catch (err) {
    context.logger.error({ err }, 'could not create a payment intent');
    throw temporarilyUnavailable('The payment processor is unavailable. Retry in a moment.', 10, 'unpaid');
  }
  const row = pendingRequestRow(context, {
    id,
    paymentIntentId: intent.id,
    fingerprint,
    now: now.toISOString(),
    expiresAt,
  });

  await insertPaymentRequest(context.db.kysely, row);
  throw await paymentRequiredFor(context, row, intent, message);
}

/** The 402: the spec's instruction in the body, the same intent as MPP challenges in `WWW-Authenticate`. */
async function paymentRequiredFor(
  context: EntitiesContext,
  row: PaymentRequestRow,
  intent: PaymentIntentView,
  message: string,
  options: { retryAfter?: number } = {},
): Promise<AppError> {
  const challenges = await challengesFor(context, { requestId: row.id, expiresAt: row.expires_at, intent });
  return paymentRequired(instructionOf(context, row, intent), message, {
    ...options,
    challenges,
    wwwAuthenticate: await wwwAuthenticate(challenges),
  });
}

function instructionOf(context: EntitiesContext, row: PaymentRequestRow, intent: PaymentIntentView): PaymentInstruction {
  return {
    amount: PRICE.amount,
    currency: PRICE.displayCurrency,
    address: intent.clientSecret ?? '',
    reference: intent.id,
    expires_at: row.expires_at,
    processor: context.payments.name,
    ...(context.payments.publishableKey ? { publishable_key: context.payments.publishableKey } : {}),
    ...(context.payments.name === 'sandbox' ? { confirm_url: context.urls.sandboxConfirm(intent.id) } : {}),
  };
}

async function publish(
  context: EntitiesContext,
  input: {
    row: PaymentRequestRow;
    body: GenerationRequest;
    slug: string;
    intent: PaymentIntentView;
    taken: (addendum?: string) => Promise<AppError>;
  },
): Promise<Published> {
  const { row, body, slug, intent } = input;
  const reference = row.payment_intent_id;
  const entityId = newId();
  const attempt = row.attempts + 1;
  let blobKey: string | null = null;
  try {
    // Without a language hint the name is read in a voice of its own script, never spelled out as English.
    const speech = await context.speech.synthesize({
      text: body.name,
      voiceStyle: body.voice_style,
      language: body.language ?? speechLanguageFor(body.name),
    });
    blobKey = `entities/${entityId}/name-${sha256Hex(speech.mp3).slice(0, 12)}.mp3`;
    await context.blobs.put(blobKey, speech.mp3, 'audio/mpeg');
    const now = isoNow(context.clock);
    const deletionToken = context.keys.deletionToken(reference);
    const entity: EntityRow = {
      id: entityId,
      slug,
      name: body.name,
      entity_type: body.entity_type,
      description: body.description,
      operator: body.operator,
      visibility: body.visibility,
      avatar_url: body.avatar_url ?? null,
      source_url: body.source_url ?? null,
      voice_style: body.voice_style ?? null,
      language: body.language ?? null,
      intro: body.intro ?? null,
      external_metadata: body.external_metadata === undefined ? null : JSON.stringify(body.external_metadata),
      agent_id: body.agent_id ?? null,
      callback_url: body.callback_url ?? null,
      created_via: 'agent_api',
      claim_state: 'unclaimed',
      verification_state: 'unverified',
      payment_intent_id: reference,
      payment_method: intent.paymentMethodType ?? 'card',
      deletion_token_hash: sha256Hex(deletionToken), // P12: only the hash is stored
      audio_blob_key: blobKey,
      audio_byte_size: speech.mp3.length,
      audio_duration_ms: speech.durationMs,
      created_at: now,
      deleted_at: null,
      claimed_by_account_id: null,
      claimed_at: null,
      domain_token: null,
      verified_domain: null,
      domain_verified_at: null,
      name_skeleton: confusableSkeleton(slug),
    };
    await withTransaction(context, async (tx) => {
      const { trx } = tx;
      await insertEntity(trx, entity);
      const moved = await moveRequestState(trx, {
        paymentIntentId: reference,
        from: ['claimed'],
        to: 'published',
        now,
        entityId,
        lastError: null,
      });
      if (!moved) throw new Error('lost the claim while publishing');
      if (entity.callback_url) {
        await enqueue(tx, entityCallbackJob, { entity_id: entityId });
      }
    });
    context.metrics.payments.inc({ outcome: 'published' });
    return {
      body: publishedBody(context, entity, deletionToken),
      replayed: false,
      receipt: await paymentReceipt(context.payments.name, reference, now),
    };
  } catch (err) {
    if (blobKey) await context.blobs.delete(blobKey).catch(() => undefined);
    const now = isoNow(context.clock);
    if (isUniqueViolation(err)) {
      const latest = await findPaymentRequestByIntent(context.db.kysely, reference);
      if (latest?.state === 'published') return replayPublished(context, latest);
      await refundPaymentRequest(context, reference, 'name taken while publishing');
      throw await input.taken(' Your payment for this request has been refunded.');
    }
    const message = err instanceof Error ? err.message : String(err);
    context.logger.error({ err, payment_intent: reference, attempt }, 'entity generation failed after payment');
    if (attempt >= MAX_GENERATION_ATTEMPTS) {
      const refunded = await refundPaymentRequest(context, reference, message);
      throw publishingFailed(
        refunded
          ? `Publishing failed ${attempt} times; your payment has been refunded in full. Start again without the header to retry.`
          : `Publishing failed ${attempt} times; your payment will be refunded in full automatically. Start again without the header to retry.`,
        reference,
        refunded ? 'refunded' : 'refund_pending',
      );
    }
    await moveRequestState(context.db.kysely, {
      paymentIntentId: reference,
      from: ['claimed'],
      to: 'pending',
      now,
      lastError: message,
    });
    throw temporarilyUnavailable(
      'Publishing failed on our side. Your payment is kept for this request: repeat the same request (with the same header) to retry at no charge.',
      5,
      'paid',
    );
  }
}

function publishedBody(context: EntitiesContext, entity: EntityRow, deletionToken: string): PublishedBody {
  return {
    status: 'published',
    payment_status: 'paid',
    entity: {
      name: entity.name,
      entity_type: entity.entity_type,
      profile_url: context.urls.profile(entity.slug),
      machine_readable_url: context.urls.machineReadable(entity.slug),
      audio_url: context.urls.audio(entity.slug),
      avatar_url: avatarUrlOf(context, entity),
      intro: entity.intro ?? '',
      visibility: entity.visibility,
      created_via: 'agent_api',
    },
    receipt: {
      amount: PRICE.amount,
      currency: PRICE.displayCurrency,
      method: entity.payment_method,
      transaction_id: entity.payment_intent_id,
      deletion_token: deletionToken,
    },
  };
}

export const avatarUrlOf = (context: EntitiesContext, entity: Pick<EntityRow, 'avatar_url'>): string =>
  entity.avatar_url ?? context.urls.defaultAvatar();

async function replayPublished(context: EntitiesContext, row: PaymentRequestRow): Promise<Published> {
  const entity = row.entity_id ? await findEntityById(context.db.kysely, row.entity_id) : undefined;
  if (!entity || entity.deleted_at) throw agentError('gone', 'The entity published with this payment has been deleted.');
  // P7: the same 200, rebuilt from the stored entity; the token is re-derived, never stored.
  context.metrics.payments.inc({ outcome: 'replayed' });
  return {
    body: publishedBody(context, entity, context.keys.deletionToken(row.payment_intent_id)),
    replayed: true,
    receipt: await paymentReceipt(context.payments.name, row.payment_intent_id, entity.created_at),
  };
}

/**
 * Refunds the payment of one request exactly once (P9): the state move to `refunding` admits a
 * single caller, and the processor call carries the key `refund:<pi>` (P16), so even a resumed
 * call (after a crash) cannot refund twice. A failed call leaves `refunding`; the sweeper resumes it.
 */
export async function refundPaymentRequest(
  deps: Pick<Deps, 'db' | 'clock' | 'payments' | 'logger' | 'metrics'>,
  paymentIntentId: string,
  reason: string,
  options: { resume?: boolean } = {},
): Promise<boolean> {
  const now = isoNow(deps.clock);
  const db = deps.db.kysely;
  const moved = await moveRequestState(db, {
    paymentIntentId,
    // Only the sweeper resumes an unfinished refund; everyone else must win the move.
    from: options.resume ? ['refunding'] : ['pending', 'claimed'],
    to: 'refunding',
    now,
    lastError: reason,
  });
  if (!moved) return false;
  try {
    await deps.payments.refundIntent(paymentIntentId, `refund:${paymentIntentId}`);
  } catch (err) {
    deps.logger.error({ err, payment_intent: paymentIntentId }, 'refund failed; the sweeper will retry');
    return false;
  }
  await moveRequestState(db, { paymentIntentId, from: ['refunding'], to: 'refunded', now: isoNow(deps.clock) });
  deps.metrics.payments.inc({ outcome: 'refunded' });
  deps.logger.info({ payment_intent: paymentIntentId, reason }, 'payment refunded');
  return true;
}
