/**
 * Publishing after a won claim (P1, P6): speak the name and store it (src/features/profiles), write
 * the profile and move the request to `published` in one transaction, answer the 200 with its
 * receipt; a failure is retried for free or refunded once (P9). An identical retry after success
 * replays the same 200 (P7).
 */
import { isUniqueViolation } from '../../db/errors.js';
import { withTransaction } from '../../db/transaction.js';
import type { Deps } from '../../deps.js';
import type { AppError } from '../../errors.js';
import { enqueue } from '../../jobs/queue.js';
import { isoNow } from '../../lib/clock.js';
import { confusableSkeleton } from '../../lib/confusables.js';
import { newId } from '../../lib/ids.js';
import { sha256Hex } from '../../lib/secrets.js';
import {
  avatarUrlOf,
  type EntityRow,
  findProfileById,
  insertProfile,
  makeNameGuide,
  storeNameAudio,
} from '../profiles/service.js';
import { profileUrls } from '../profiles/urls.js';
import { agentError, publishingFailed, temporarilyUnavailable } from './agent-errors.js';
import { entityCallbackJob } from './callback-job.js';
import { paymentReceipt } from './mpp.js';
import { PRICE } from './price.js';
import { findPaymentRequestByIntent, moveRequestState, type PaymentRequestRow } from './repo.js';
import { refundPaymentRequest } from './refund.js';
import type { GenerationRequest } from './request-checks.js';
import { FacilitatorUnavailable } from './x402.js';
import { facilitatorDown, storedPaymentResponse, X402SettlementRefused } from './x402-settlement.js';

/** Failed generations after payment before the payment is refunded (P9). */
export const MAX_GENERATION_ATTEMPTS = 3;

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
  /** x402's `PAYMENT-RESPONSE` header (base64 JSON of the settlement), the same on every replay. */
  paymentResponse?: string;
}

export async function publish(
  deps: Deps,
  input: {
    row: PaymentRequestRow;
    body: GenerationRequest;
    slug: string;
    paymentMethod: string;
    /** Takes the payment now (x402 settles only for a profile about to be written); answers `PAYMENT-RESPONSE`. */
    settle?: () => Promise<string>;
    taken: (addendum?: string) => Promise<AppError>;
  },
): Promise<Published> {
  const { row, body, slug } = input;
  const reference = row.payment_intent_id;
  const entityId = newId();
  const attempt = row.attempts + 1;
  let blobKey: string | null = null;
  try {
    // The guide is made within the request, beside the audio: warm, it costs 0.9 ms p50 and 6 ms
    // p95 (300 varied names, real eSpeak NG in its worker thread, 2-core machine at load 3 to 5),
    // under the 20 ms budget and small beside the speech itself (32 ms p50, 126 ms p95). The
    // engine's work runs in its worker thread; only the dictionary lookups run here (the
    // dictionary is loaded by the warm-up, warm-up.ts).
    const [audio, guide] = await Promise.all([
      storeNameAudio(deps, { entityId, name: body.name, voiceStyle: body.voice_style, language: body.language }),
      makeNameGuide(deps, { name: body.name, nameLanguage: body.name_language }),
    ]);
    blobKey = audio.blobKey;
    const paymentResponse = input.settle ? await input.settle() : undefined;
    const now = isoNow(deps.clock);
    const deletionToken = deps.agentApi.keys.deletionToken(reference);
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
      payment_method: input.paymentMethod,
      deletion_token_hash: sha256Hex(deletionToken), // P12: only the hash is stored
      audio_blob_key: blobKey,
      audio_byte_size: audio.byteSize,
      audio_duration_ms: audio.durationMs,
      created_at: now,
      deleted_at: null,
      claimed_by_account_id: null,
      claimed_at: null,
      domain_token: null,
      verified_domain: null,
      domain_verified_at: null,
      name_skeleton: confusableSkeleton(slug),
      ...guide,
    };
    await withTransaction(deps, async (tx) => {
      await insertProfile(tx, entity);
      const moved = await moveRequestState(tx.trx, {
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
    deps.metrics.payments.inc({ outcome: 'published' });
    return {
      body: publishedBody(deps, entity, deletionToken),
      replayed: false,
      receipt: await paymentReceipt(row.provider, reference, now),
      ...(paymentResponse ? { paymentResponse } : {}),
    };
  } catch (err) {
    if (blobKey) await deps.blobs.delete(blobKey).catch(() => undefined);
    const now = isoNow(deps.clock);
    if (err instanceof FacilitatorUnavailable || err instanceof X402SettlementRefused) {
      // Nothing was taken: the payment stays usable (facilitator down) or is void (refused).
      const to = err instanceof FacilitatorUnavailable ? 'pending' : 'canceled';
      await moveRequestState(deps.db.kysely, { paymentIntentId: reference, from: ['claimed'], to, now, lastError: err.message });
      deps.logger.error({ err: err.message, payment_request: reference }, 'x402 settlement did not happen');
      throw err instanceof FacilitatorUnavailable ? facilitatorDown() : err;
    }
    if (isUniqueViolation(err)) {
      const latest = await findPaymentRequestByIntent(deps.db.kysely, reference);
      if (latest?.state === 'published') return replayPublished(deps, latest);
      await refundPaymentRequest(deps, reference, 'name taken while publishing');
      throw await input.taken(' Your payment for this request has been refunded.');
    }
    const message = err instanceof Error ? err.message : String(err);
    deps.logger.error({ err, payment_intent: reference, attempt }, 'entity generation failed after payment');
    if (attempt >= MAX_GENERATION_ATTEMPTS) {
      const refunded = await refundPaymentRequest(deps, reference, message);
      throw publishingFailed(
        refunded
          ? `Publishing failed ${attempt} times; your payment has been refunded in full. Start again without the header to retry.`
          : `Publishing failed ${attempt} times; your payment will be refunded in full automatically. Start again without the header to retry.`,
        reference,
        refunded ? 'refunded' : 'refund_pending',
      );
    }
    await moveRequestState(deps.db.kysely, {
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

function publishedBody(deps: Deps, entity: EntityRow, deletionToken: string): PublishedBody {
  return {
    status: 'published',
    payment_status: 'paid',
    entity: {
      name: entity.name,
      entity_type: entity.entity_type,
      profile_url: profileUrls(deps).profile(entity.slug),
      machine_readable_url: profileUrls(deps).machineReadable(entity.slug),
      audio_url: profileUrls(deps).audio(entity.slug),
      avatar_url: avatarUrlOf(deps, entity),
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

export async function replayPublished(deps: Deps, row: PaymentRequestRow): Promise<Published> {
  const entity = row.entity_id ? await findProfileById(deps, row.entity_id) : undefined;
  if (!entity || entity.deleted_at) throw agentError('gone', 'The entity published with this payment has been deleted.');
  // P7: the same 200, rebuilt from the stored entity; the token is re-derived, never stored.
  deps.metrics.payments.inc({ outcome: 'replayed' });
  return {
    body: publishedBody(deps, entity, deps.agentApi.keys.deletionToken(row.payment_intent_id)),
    replayed: true,
    receipt: await paymentReceipt(row.provider, row.payment_intent_id, entity.created_at),
    paymentResponse: await storedPaymentResponse(deps, row),
  };
}
