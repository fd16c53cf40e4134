/**
 * `GET {SITE_URL}/openapi.json`: the agent API as the OpenAPI 3.1 document agent tooling looks
 * for at a site's root (MPP discovery): `x-service-info` (where the docs are), and on the paid
 * operation `x-payment-info` in the multi-offer form, one offer per payment method this
 * deployment accepts, in the currency's smallest unit. The `/v1` REST API has its own document,
 * linked from here.
 */
import { SandboxPaymentProvider } from '../../integrations/payments/sandbox.js';
import type { Deps } from '../../deps.js';
import { RATE_LIMIT_HEADERS, RETRY_AFTER_HEADER } from '../../http/openapi/conventions.js';
import { agentApiUrls } from './urls.js';
import { paymentInfo } from './mpp.js';
import { SCHEMA_PATH } from './request-schema.js';
import {
  GenerateBody,
  InvalidRequestResponse,
  PaymentRequiredResponse,
  PublishedResponse,
  SlugParams,
  StatusResponse,
} from './schemas.js';

const json = (schema: unknown, extra: Record<string, unknown> = {}) => ({
  content: { 'application/json': { schema, ...extra } },
});
const status = (description: string) => ({ description, ...json(StatusResponse) });

export const EXAMPLE_REQUEST = {
  name: 'Orbit Scheduler',
  entity_type: 'ai_agent',
  description: 'An agent that books meetings for small teams.',
  operator: 'Example Robotics',
  visibility: 'public',
};

export function buildAgentOpenApi(deps: Deps) {
  const { config } = deps;
  const urls = agentApiUrls(deps);
  return {
    openapi: '3.1.0',
    info: {
      title: 'voicename agent API',
      version: '1.0.0',
      description:
        'Publish a public profile for an AI agent, bot or robot with its name spoken aloud, for 1.00 AUD per ' +
        'successful generation. No account: pay per request with the Machine Payments Protocol (a 402 with ' +
        "`WWW-Authenticate: Payment` challenges and the spec's `mpp_instruction`).",
      contact: { name: 'voicename API', url: `${config.baseUrl}/docs` },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: urls.site, description: 'SITE_URL' }],
    externalDocs: { description: 'Agent guide', url: `${urls.site}/llms-full.txt` },
    'x-service-info': {
      categories: ['media', 'identity', 'text-to-speech'],
      docs: { homepage: urls.site, apiReference: `${config.baseUrl}/docs`, llms: `${urls.site}/llms.txt` },
    },
    'x-related': {
      rest_api: `${config.baseUrl}/v1/openapi.json`,
      discovery: urls.discovery,
      api_catalog: `${urls.site}/.well-known/api-catalog`,
      mcp: `${urls.site}/mcp`,
    },
    tags: [{ name: 'Agents', description: AGENTS_TAG }],
    paths: agentPaths(deps),
  };
}

/** The unpaid budget's fields (policy `"unpaid"`, shared with MCP tool calls) on the answers it counts. */
const UNPAID_LIMIT_HEADERS = {
  'RateLimit-Policy': { ...RATE_LIMIT_HEADERS['RateLimit-Policy'], example: '"unpaid";q=30;w=60' },
  RateLimit: { ...RATE_LIMIT_HEADERS.RateLimit, example: '"unpaid";r=29;t=42' },
};

const NOT_MODIFIED = { description: 'Not modified: the `If-None-Match` ETag is current.' };
/**
 * The static documents exist on every deployment, so the one refusal a GET of them meets is the
 * HTTP server's own, before any route: request headers over its 16 KiB limit.
 */
const HEADERS_TOO_LARGE = {
  description: 'Request headers larger than 16 KiB: refused by the HTTP server before any route, with no body.',
};

export const AGENTS_TAG =
  'Paid agent profiles under SITE_URL: no account, 1.00 AUD per published profile (HTTP 402, then the paid retry).';

/** The agent API's operations: in this document and, with SITE_URL as their server, in the /v1 one. */
export function agentPaths(deps: Deps) {
  const urls = agentApiUrls(deps);
  const tags = ['Agents'];
  const anyJson = (description: string, type = 'application/json') => ({
    description,
    content: { [type]: { schema: { type: 'object', additionalProperties: true } } },
  });
  const plainText = (description: string) => ({ description, content: { 'text/plain': { schema: { type: 'string' } } } });
  return {
    '/api/entities/generate': {
      post: {
        operationId: 'entities.generate',
        tags,
        summary: 'Generate and publish an entity profile (paid: 1.00 AUD)',
        description:
          'Without a credential a valid body gets 402 with MPP challenges in `WWW-Authenticate` and the payment ' +
          'instruction in the body. Pay, then repeat the exact request with `Authorization: Payment <credential>` ' +
          `or \`Payment-Authorization: mpp; reference="<mpp_instruction.reference>"\`. Rules: ${urls.schema}.`,
        security: [],
        'x-payment-info': paymentInfo(deps),
        parameters: [
          {
            name: 'Payment-Authorization',
            in: 'header',
            required: false,
            description:
              'The paid retry: `mpp; reference="<mpp_instruction.reference>"` (the reference flow), or ' +
              '`Payment <credential>` (a standard MPP credential, also accepted in `Authorization`).',
            schema: { type: 'string', maxLength: 8192 },
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: GenerateBody, example: EXAMPLE_REQUEST } },
        },
        responses: {
          200: {
            description: 'Published (or the same answer again for an identical paid retry).',
            headers: {
              'Payment-Receipt': {
                description: 'base64url JSON: method, reference, status, timestamp',
                schema: { type: 'string' },
              },
              'Idempotent-Replayed': { description: '`true` on an identical retry', schema: { type: 'string' } },
            },
            ...json(PublishedResponse),
          },
          400: { description: 'Invalid request: nothing to pay.', ...json(InvalidRequestResponse) },
          402: {
            description: 'Payment required.',
            headers: {
              'WWW-Authenticate': { description: 'One `Payment` challenge per accepted method', schema: { type: 'string' } },
              ...UNPAID_LIMIT_HEADERS,
            },
            ...json(PaymentRequiredResponse),
          },
          409: status('The payment belongs to another body, or is being used right now.'),
          410: status('The entity published with this payment was deleted.'),
          429: {
            ...status('Too many unpaid requests: wait `Retry-After` seconds.'),
            headers: { ...UNPAID_LIMIT_HEADERS, 'Retry-After': RETRY_AFTER_HEADER },
          },
          500: status('Something failed on our side.'),
          502: status('Publishing failed for good after payment: the payment is refunded (`transaction_id`).'),
          503: status('Temporarily unavailable; `payment_status` says whether you have paid.'),
        },
      },
    },
    '/api/entities/{slug}': {
      delete: {
        operationId: 'entities.delete',
        tags,
        summary: 'Delete a published entity',
        description:
          'With the `deletion_token` of the receipt. The profile, its audio and its machine-readable document answer 410 from then on; the name stays reserved.',
        security: [],
        parameters: [
          { name: 'slug', in: 'path', required: true, schema: SlugParams.properties.slug },
          { name: 'Deletion-Token', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
        ],
        responses: {
          200: status('Deleted; the profile URLs answer 410 from now on.'),
          401: status('No deletion token.'),
          403: status('Wrong deletion token.'),
          404: status('No such entity.'),
          410: status('Already deleted.'),
        },
      },
    },
    '/e/{slug}/.well-known/service.json': {
      get: {
        operationId: 'entities.get',
        tags,
        summary: 'The machine-readable profile of a published entity',
        description: 'The profile as JSON: name, type, operator, audio and avatar URLs, and the verified domain if any.',
        security: [],
        parameters: [{ name: 'slug', in: 'path', required: true, schema: SlugParams.properties.slug }],
        responses: {
          200: { description: 'The profile.', content: { 'application/json': { schema: { type: 'object' } } } },
          404: { description: 'No such entity.' },
          410: { description: 'Deleted.' },
        },
      },
    },
    '/e/oembed.json': {
      get: {
        operationId: 'entities.oembed',
        tags,
        summary: 'oEmbed for a profile URL',
        description:
          'oEmbed 1.0 (`link`): the name, its operator and the preview card as thumbnail (left out when it does not fit ' +
          '`maxwidth`/`maxheight`). Announced by the profile page; CORS-enabled.',
        security: [],
        parameters: [
          {
            name: 'url',
            in: 'query',
            required: true,
            description: 'A profile URL, `<SITE_URL>/e/<slug>`.',
            schema: { type: 'string' },
          },
          { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: ['json'] } },
          { name: 'maxwidth', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'maxheight', in: 'query', required: false, schema: { type: 'integer' } },
        ],
        responses: {
          200: anyJson('The oEmbed response.'),
          400: plainText('No `url`.'),
          404: plainText('Not a profile URL of this site, or no such profile.'),
          410: plainText('The profile was deleted.'),
          501: plainText('A format other than json.'),
        },
      },
    },
    '/.well-known/service-agent-services.json': {
      get: {
        operationId: 'entities.discovery',
        tags,
        summary: 'The discovery document',
        description: 'What the agent API does, its price, request schema, payment methods and flow: what an agent reads first.',
        security: [],
        responses: { 200: anyJson('The discovery document.'), 304: NOT_MODIFIED, 431: HEADERS_TOO_LARGE },
      },
    },
    [SCHEMA_PATH]: {
      get: {
        operationId: 'entities.requestSchema',
        tags,
        summary: 'The request schema',
        description: 'The JSON Schema (draft 2020-12) that generation requests are validated against: the authoritative rules.',
        security: [],
        responses: { 200: anyJson('The schema.', 'application/schema+json'), 304: NOT_MODIFIED, 431: HEADERS_TOO_LARGE },
      },
    },
    ...(deps.payments instanceof SandboxPaymentProvider
      ? {
          '/api/sandbox/payment-intents/{id}/confirm': {
            post: {
              operationId: 'sandbox.confirmPaymentIntent',
              tags,
              summary: 'Pay a sandbox payment intent (test deployments only)',
              description: `Served only while the built-in payment sandbox is the processor: confirming is paying. See ${urls.discovery}.`,
              security: [],
              parameters: [
                { name: 'id', in: 'path', required: true, description: 'mpp_instruction.reference', schema: { type: 'string' } },
              ],
              requestBody: {
                required: true,
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['client_secret'],
                      properties: {
                        client_secret: { type: 'string', description: 'mpp_instruction.address' },
                        payment_method: {
                          type: 'string',
                          enum: ['pm_card_visa', 'pm_card_chargeDeclined'],
                          default: 'pm_card_visa',
                        },
                      },
                    },
                  },
                },
              },
              responses: {
                200: anyJson('Confirmed: the intent has succeeded.'),
                400: status('No client secret, or an unknown test card.'),
                402: anyJson('The test card was declined.'),
                404: status('No intent with this id and client secret.'),
                409: anyJson('The intent is not waiting for payment.'),
              },
            },
          },
        }
      : {}),
  };
}
