/**
 * `entity.published` notifications to an entity's `callback_url`. Agents have no account and no
 * shared secret, so deliveries are signed with the server's Ed25519 key (public half in the
 * discovery document): `X-Entity-Signature` = base64url Ed25519 over `<X-Entity-Timestamp>.<body>`.
 * Sent through the SSRF-safe outbound client; retried by the jobs table.
 */
import { type HostLookup, OutboundError, sendOutbound } from '../../integrations/outbound-http.js';
import { customerBoundRules } from '../../integrations/customer-bound.js';
import type { Deps } from '../../deps.js';
import { avatarUrlOf, type EntityRow, findProfileById } from '../profiles/service.js';
import { profileUrls } from '../profiles/urls.js';

export function callbackPayload(deps: Deps, entity: EntityRow) {
  const urls = profileUrls(deps);
  return {
    id: `evt_${entity.id}`,
    event: 'entity.published',
    timestamp: entity.created_at,
    data: {
      name: entity.name,
      slug: entity.slug,
      entity_type: entity.entity_type,
      visibility: entity.visibility,
      profile_url: urls.profile(entity.slug),
      machine_readable_url: urls.machineReadable(entity.slug),
      audio_url: urls.audio(entity.slug),
      avatar_url: avatarUrlOf(deps, entity),
      agent_id: entity.agent_id,
      transaction_id: entity.payment_intent_id,
      created_via: entity.created_via,
      created_at: entity.created_at,
    },
  };
}

/** Headers of one signed delivery of `body` at `unixSeconds`. */
export function signCallback(deps: Deps, body: string, eventId: string, unixSeconds: number): Record<string, string> {
  const timestamp = String(unixSeconds);
  return {
    'content-type': 'application/json',
    'user-agent': 'voicename-callbacks/1',
    'x-entity-event-id': eventId,
    'x-entity-timestamp': timestamp,
    'x-entity-key-id': deps.agentApi.keys.keyId,
    'x-entity-signature': deps.agentApi.keys.sign(`${timestamp}.${body}`),
  };
}

/**
 * One attempt of the `entities.callback` job (see callback-job.ts): throws to be retried; a URL
 * that can never be delivered to is dropped with a warning.
 */
export async function deliverEntityCallback(
  deps: Deps & {
    /** Resolver override for the outbound client (tests; production deps never set it). */
    lookup?: HostLookup;
    /** The only CA (PEM) trusted for the receiver's certificate, instead of the system's (tests). */
    trustedCa?: string;
  },
  entityId: string,
  attempt: number,
): Promise<void> {
  const entity = await findProfileById(deps, entityId);
  // Deleted before delivery, or no URL: nothing to tell.
  if (!entity || entity.deleted_at || !entity.callback_url) return;
  const event = callbackPayload(deps, entity);
  const body = JSON.stringify(event);
  const headers = signCallback(deps, body, event.id, Math.floor(deps.clock.now().getTime() / 1000));
  try {
    const response = await sendOutbound({
      url: entity.callback_url,
      headers,
      body,
      timeoutMs: 15_000,
      ...customerBoundRules(deps),
    });
    if (response.status < 200 || response.status >= 300) {
      throw new Error(`callback answered HTTP ${response.status}`);
    }
    deps.logger.info({ entity: entity.slug, attempt, status: response.status }, 'entity callback delivered');
  } catch (err) {
    // A URL that can never be delivered to (bad syntax, private address) is not retried.
    if (err instanceof OutboundError && (err.code === 'invalid_url' || err.code === 'forbidden_address')) {
      deps.logger.warn({ entity: entity.slug, code: err.code }, 'entity callback refused by the outbound rules');
      return;
    }
    throw err;
  }
}
