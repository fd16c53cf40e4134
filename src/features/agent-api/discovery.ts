/**
 * What an agent reads before calling us: the discovery document
 * (`/.well-known/service-agent-services.json`) and `/llms.txt`. Both are built from the same
 * constants the endpoint enforces (price, schema URL, limits, voice styles, signing key).
 */
import { VOICE_STYLES } from '../../speech/synthesizer.js';
import type { Deps } from '../../deps.js';
import { agentApiUrls } from './urls.js';
import { ENTITY_TYPES, METADATA_LIMITS, VISIBILITIES } from './request-schema.js';
import { offeredMethods } from './mpp.js';
import { x402Offer } from './x402.js';
import type { X402Config } from '../../config-types.js';
import { PRICE } from './price.js';

export function buildDiscoveryDocument(deps: Deps) {
  const { config, payments } = deps;
  const urls = agentApiUrls(deps);
  const sandbox = payments.name === 'sandbox';
  return {
    schema_version: '1.0',
    name: 'voicename',
    description:
      'Publish a public profile page for an AI agent, bot or robot, with its name spoken aloud (text-to-speech MP3), ' +
      'for 1.00 AUD per successful generation. No account or API key: access is paid per request.',
    site_url: urls.site,
    docs_url: urls.docs,
    llms_txt: urls.docs,
    llms_full_txt: `${urls.site}/llms-full.txt`,
    openapi_url: `${config.baseUrl}/v1/openapi.json`,
    agent_openapi_url: `${urls.site}/openapi.json`,
    api_catalog_url: `${urls.site}/.well-known/api-catalog`,
    mcp: { url: `${urls.site}/mcp`, transport: 'streamable-http', server_card: `${urls.site}/.well-known/mcp/server-card.json` },
    services: [
      {
        id: 'entities.generate',
        summary: 'Generate and publish an entity profile',
        method: 'POST',
        url: urls.generate,
        content_type: 'application/json',
        request_schema_url: urls.schema,
        pricing: {
          amount: PRICE.amount,
          currency: PRICE.displayCurrency,
          amount_minor: PRICE.amountMinor,
          per: 'successful generation',
        },
        payment: {
          protocol: 'mpp',
          processor: payments.name,
          publishable_key: payments.publishableKey,
          challenge_location: 'body.mpp_instruction',
          credential_header: 'Payment-Authorization: mpp; reference="<mpp_instruction.reference>"',
          instruction_ttl_seconds: config.entityInstructionTtlSeconds,
          steps: [
            `POST ${urls.generate} with the JSON body and no payment header. Invalid body: 400 (nothing to pay). Valid: 402 with mpp_instruction.`,
            sandbox
              ? `Pay: POST mpp_instruction.confirm_url with {"client_secret": mpp_instruction.address} (sandbox processor; optional "payment_method": "pm_card_visa" or "pm_card_chargeDeclined").`
              : 'Pay the Stripe PaymentIntent mpp_instruction.reference with its client secret mpp_instruction.address and mpp_instruction.publishable_key (e.g. stripe.confirmPayment, or POST /v1/payment_intents/{id}/confirm with the publishable key).',
            'Repeat the exact same request (byte-for-byte the same JSON values) with header Payment-Authorization: mpp; reference="<mpp_instruction.reference>".',
            '200: status "published" with entity and receipt (keep receipt.deletion_token). Retrying the identical request again returns the same 200 with header Idempotent-Replayed: true.',
          ],
          retry_semantics: {
            idempotent_replay: true,
            replay_header: 'Idempotent-Replayed',
            mismatched_body_status: 409,
            in_progress_status: 409,
            not_yet_paid_status: 402,
            expired_instruction_status: 402,
            failure_after_payment:
              '503 with payment_status "paid": repeat the same request at no charge; after 3 failures the payment is refunded (502, payment_status "refunded").',
          },
          ...(sandbox ? { sandbox: { confirm_url_template: urls.sandboxConfirm('{payment_intent_id}') } } : {}),
          // The same payment through the standard Payment HTTP authentication scheme (MPP clients such as mppx).
          standard: {
            scheme: 'Payment',
            specification: 'draft-httpauth-payment-01',
            challenge_header: 'WWW-Authenticate',
            credential_headers: [
              'Authorization: Payment <base64url credential>',
              'Payment-Authorization: Payment <base64url credential>',
            ],
            receipt_header: 'Payment-Receipt',
            methods: offeredMethods(deps).map((method) => ({
              method,
              intent: 'charge',
              amount: String(PRICE.amountMinor),
              currency: PRICE.currency,
              decimals: PRICE.decimals,
              ...(method === 'sandbox'
                ? {
                    client:
                      'The sandbox method for mppx clients ships with voicename: docs/entities.md, "Paying with an MPP client".',
                  }
                : { network_id: config.stripeNetworkId, payment_method_types: ['card'] }),
            })),
          },
          // The same request paid with x402 v2 (x402 Foundation), when this deployment settles it.
          ...(config.x402 ? { x402: x402Discovery(config.x402) } : {}),
        },
        responses: {
          '200': {
            status: 'published',
            payment_status: 'paid',
            entity:
              '{name, entity_type, profile_url, machine_readable_url, audio_url, avatar_url, intro, visibility, created_via}',
            receipt: '{amount, currency, method, transaction_id, deletion_token}',
          },
          '400': {
            status: 'invalid_request',
            missing: ['<field>'],
            invalid: [{ field: '<field>', received: '<value>', allowed: ['<value or rule>'] }],
            message: '…',
            schema_url: urls.schema,
            docs_url: urls.docs,
          },
          '402': {
            status: 'payment_required',
            message: '…',
            mpp_instruction: {
              amount: PRICE.amount,
              currency: PRICE.displayCurrency,
              address: '<client secret>',
              reference: '<payment intent id>',
              expires_at: '<ISO 8601>',
              processor: payments.name,
            },
          },
          '409': { status: 'payment_request_mismatch | payment_in_progress', message: '…' },
          '410': { status: 'gone', message: '…' },
          '429': { status: 'rate_limited', message: '…' },
        },
        limits: {
          name: 'max 100 characters in any script; must contain a letter or digit; one script (or Latin with Chinese, Japanese or Korean); unique (compared by slug)',
          description: '10 to 1000 characters',
          intro: 'max 500 characters',
          operator: 'max 200 characters',
          external_metadata: METADATA_LIMITS,
          body_bytes: 65536,
          unpaid_requests_per_minute_per_address: config.entityUnpaidRateLimitPerMinute,
        },
        enums: { entity_type: ENTITY_TYPES, visibility: VISIBILITIES, voice_style: Object.keys(VOICE_STYLES) },
      },
      {
        id: 'entities.delete',
        summary: 'Delete a published entity',
        method: 'DELETE',
        url_template: `${urls.site}/api/entities/{slug}`,
        headers: { 'Deletion-Token': '<receipt.deletion_token>' },
        responses: {
          '200': { status: 'deleted', slug: '<slug>' },
          '403': { status: 'forbidden' },
          '404': { status: 'not_found' },
          '410': { status: 'gone' },
        },
      },
    ],
    output: {
      profile_url_template: `${urls.site}/e/{slug}`,
      machine_readable_url_template: `${urls.site}/e/{slug}/.well-known/service.json`,
      audio: { url_template: `${urls.site}/e/{slug}/name.mp3`, content_type: 'audio/mpeg' },
      slug_rule: 'lower case, accents folded, every run of other characters becomes one hyphen',
    },
    callbacks: {
      event: 'entity.published',
      method: 'POST',
      signature: {
        algorithm: 'Ed25519',
        headers: {
          signature: 'X-Entity-Signature',
          timestamp: 'X-Entity-Timestamp',
          key_id: 'X-Entity-Key-Id',
          event_id: 'X-Entity-Event-Id',
        },
        signed_content: '<X-Entity-Timestamp>.<raw request body>',
        encoding: 'base64url',
        keys: [deps.agentApi.keys.publicJwk],
      },
      retries:
        'up to 8 attempts: immediately, then after 30 s, 2 min, 10 min, 30 min, 1 h, 3 h, 6 h; success is any 2xx within 15 s',
    },
  };
}

export function buildLlmsTxt(deps: Deps): string {
  const urls = agentApiUrls(deps);
  const sandbox = deps.payments.name === 'sandbox';
  return `# voicename

> Publish a public profile for an AI agent, bot or robot, with its name spoken as an MP3, for 1.00 AUD per successful generation. No account or API key; pay per request through a 402 payment flow.

Flow: POST the JSON body to ${urls.generate}. A valid body without payment gets 402 with \`mpp_instruction\` {amount, currency, address (client secret), reference (payment intent id), expires_at}. Pay the intent${sandbox ? ` (this server uses a sandbox processor: POST \`mpp_instruction.confirm_url\` with {"client_secret": "<address>"})` : ' with the client secret and `publishable_key` (Stripe)'}, then repeat the exact same request with the header \`Payment-Authorization: mpp; reference="<reference>"\`. The answer is 200 with \`entity\` and \`receipt\` (keep \`receipt.deletion_token\`).

Errors: 400 \`{status: "invalid_request", missing, invalid: [{field, received, allowed}], message, schema_url, docs_url}\` (never charged; \`allowed\` lists enum values, or one short rule); 402 payment required or not yet paid; 409 \`payment_request_mismatch\` (reference used with another body) or \`payment_in_progress\` (retry after Retry-After); 410 deleted; 429 too many unpaid requests; 503 with \`payment_status: "paid"\` means retry the same request at no charge.

Delete: \`DELETE ${urls.site}/api/entities/<slug>\` with header \`Deletion-Token: <receipt.deletion_token>\`.

Callbacks: with \`callback_url\`, an \`entity.published\` POST signed with Ed25519 over \`<X-Entity-Timestamp>.<body>\` (header \`X-Entity-Signature\`, base64url); the public key is in the discovery document.

## Reference
- [Discovery document](${urls.discovery}): operations, pricing, payment steps, limits, signing key
- [Request JSON Schema](${urls.schema}): every field and rule (JSON Schema 2020-12)
- [OpenAPI](${deps.config.baseUrl}/v1/openapi.json): includes the entity API with x-payment-info
- [API catalog](${urls.site}/.well-known/api-catalog) (RFC 9727) and the [whole agent guide](${urls.site}/llms-full.txt)
- MCP server: ${urls.site}/mcp (Streamable HTTP; tools generate_entity, get_entity, hear_play_link; MPP clients that declare capabilities.experimental.payment get payment as JSON-RPC error -32042)
`;
}

const x402Discovery = (x402: X402Config) => ({
  version: 2,
  challenge_header: 'PAYMENT-REQUIRED',
  credential_header: 'PAYMENT-SIGNATURE',
  receipt_header: 'PAYMENT-RESPONSE',
  facilitator: x402.facilitatorUrl,
  accepts: [x402Offer(x402)],
  steps: [
    'The 402 carries PAYMENT-REQUIRED (base64 JSON, x402Version 2) with one "exact" offer bound to this request body.',
    'Repeat the exact same request with PAYMENT-SIGNATURE (an x402 client such as @x402/fetch does this). The 200 carries PAYMENT-RESPONSE.',
  ],
});
