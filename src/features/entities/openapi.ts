/**
 * `GET {SITE_URL}/openapi.json`: the agent API as the OpenAPI 3.1 document agent tooling looks
 * for at a site's root (MPP discovery): `x-service-info` (where the docs are), and on the paid
 * operation `x-payment-info` in the multi-offer form, one offer per payment method this
 * deployment accepts, in the currency's smallest unit. The `/v1` REST API has its own document,
 * linked from here.
 */
import type { EntitiesContext } from './context.js';
import { paymentInfo } from './mpp.js';
import { InvalidRequestResponse, PaymentRequiredResponse, PublishedResponse, SlugParams, StatusResponse } from './schemas.js';

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

export function buildAgentOpenApi(context: EntitiesContext) {
  const { urls, config } = context;
  return {
    openapi: '3.1.0',
    info: {
      title: 'voicename agent API',
      version: '1.0.0',
      description:
        'Publish a public profile for an AI agent, bot or robot with its name spoken aloud, for 1.00 AUD per ' +
        'successful generation. No account: pay per request with the Machine Payments Protocol (a 402 with ' +
        "`WWW-Authenticate: Payment` challenges and the spec's `mpp_instruction`).",
    },
    servers: [{ url: urls.site }],
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
    paths: {
      '/api/entities/generate': {
        post: {
          operationId: 'generateEntity',
          summary: 'Generate and publish an entity profile (paid: 1.00 AUD)',
          description:
            'Without a credential a valid body gets 402 with MPP challenges in `WWW-Authenticate` and the payment ' +
            'instruction in the body. Pay, then repeat the exact request with `Authorization: Payment <credential>` ' +
            `or \`Payment-Authorization: mpp; reference="<mpp_instruction.reference>"\`. Rules: ${urls.schema}.`,
          security: [],
          'x-payment-info': paymentInfo(context),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: context.schema, example: EXAMPLE_REQUEST } },
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
              },
              ...json(PaymentRequiredResponse),
            },
            409: status('The payment belongs to another body, or is being used right now.'),
            410: status('The entity published with this payment was deleted.'),
            429: status('Too many unpaid requests.'),
            503: status('Temporarily unavailable; `payment_status` says whether you have paid.'),
          },
        },
      },
      '/api/entities/{slug}': {
        delete: {
          operationId: 'deleteEntity',
          summary: 'Delete a published entity',
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
          operationId: 'getEntity',
          summary: 'The machine-readable profile of a published entity',
          security: [],
          parameters: [{ name: 'slug', in: 'path', required: true, schema: SlugParams.properties.slug }],
          responses: {
            200: { description: 'The profile.', content: { 'application/json': { schema: { type: 'object' } } } },
            404: { description: 'No such entity.' },
            410: { description: 'Deleted.' },
          },
        },
      },
    },
  };
}
