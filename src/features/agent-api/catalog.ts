/**
 * Where agents' tools look for this service's APIs: the RFC 9727 API catalog
 * (`/.well-known/api-catalog`, a linkset naming each API's description and documentation) and
 * `/llms-full.txt` (the short agent guide followed by the whole agent documentation).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Deps } from '../../deps.js';
import { agentApiUrls } from './urls.js';
import { buildLlmsTxt } from './discovery.js';

/** Where the MCP server card is served (features/mcp); the catalog names it for the MCP server. */
const MCP_CARD_PATH = '/.well-known/mcp/server-card.json';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
/** The `Link` header the site's documents carry to the catalog (RFC 9727 section 3). */
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

const OPENAPI_TYPE = 'application/json';

/**
 * Each item of the catalog is an API's base (RFC 9727 section 4: `item` links to the APIs, and a
 * linkset entry anchored there names its `service-desc` and `service-doc`, RFC 9264). Every link
 * answers GET 200 with its `type`: `/v1` and `/api/entities/generate` answer a small description
 * of themselves (buildApiIndex, buildGenerateIndex); MCP's endpoint may answer a GET 405 without an
 * event stream (Streamable HTTP), so its item and anchor are its server card, which names the endpoint.
 */
export function buildApiCatalog(deps: Deps) {
  const { config } = deps;
  const urls = agentApiUrls(deps);
  const restApi = `${config.baseUrl}/v1`;
  const mcpCard = `${urls.site}${MCP_CARD_PATH}`;
  return {
    linkset: [
      {
        anchor: `${urls.site}${API_CATALOG_PATH}`,
        item: [
          { href: restApi, type: 'application/json', title: 'voicename REST API' },
          { href: urls.generate, type: 'application/json', title: 'voicename agent API' },
          { href: mcpCard, type: 'application/json', title: 'voicename MCP server' },
        ],
      },
      {
        anchor: restApi,
        'service-desc': [{ href: `${config.baseUrl}/v1/openapi.json`, type: OPENAPI_TYPE }],
        'service-doc': [{ href: `${config.baseUrl}/docs`, type: 'text/html' }],
      },
      {
        anchor: urls.generate,
        'service-desc': [
          { href: urls.discovery, type: 'application/json' },
          { href: urls.schema, type: 'application/schema+json' },
          { href: `${urls.site}/openapi.json`, type: OPENAPI_TYPE },
        ],
        'service-doc': [
          { href: urls.docs, type: 'text/plain' },
          { href: `${urls.site}/llms-full.txt`, type: 'text/plain' },
        ],
      },
      {
        anchor: mcpCard,
        'service-doc': [{ href: `${urls.site}/llms-full.txt`, type: 'text/plain' }],
      },
    ],
  };
}

/** `GET /v1`: what the REST API is and where its description and documentation are. */
export function buildApiIndex(deps: Deps) {
  const { config } = deps;
  return {
    name: 'voicename REST API',
    description:
      'Collections of people, their recorded name pronunciations as play links, and signed webhooks. ' +
      'Every operation needs `Authorization: Bearer <API_KEY>`.',
    openapi_url: `${config.baseUrl}/v1/openapi.json`,
    docs_url: `${config.baseUrl}/docs`,
    api_catalog_url: `${agentApiUrls(deps).site}${API_CATALOG_PATH}`,
  };
}

/** `GET /api/entities/generate`: the operation is a POST; a GET says how to use it. */
export function buildGenerateIndex(deps: Deps) {
  const urls = agentApiUrls(deps);
  return {
    name: 'voicename agent API',
    description:
      'POST a JSON body here (no account) to publish an agent profile with its name spoken aloud, 1.00 AUD each: ' +
      'the unpaid request answers 402 with the payment to make, then repeat it paid.',
    method: 'POST',
    schema_url: urls.schema,
    openapi_url: `${urls.site}/openapi.json`,
    discovery_url: urls.discovery,
    docs_url: urls.docs,
    api_catalog_url: `${urls.site}${API_CATALOG_PATH}`,
  };
}

/** The `Link` header of an API's base: its description, documentation and the catalog (RFC 8631, 9727). */
export function describedByLink(serviceDesc: string, serviceDoc: string, docType: string): string {
  return [
    `<${serviceDesc}>; rel="service-desc"; type="${OPENAPI_TYPE}"`,
    `<${serviceDoc}>; rel="service-doc"; type="${docType}"`,
    API_CATALOG_LINK,
  ].join(', ');
}

let guide: string | null | undefined;

/** The agent documentation (docs/entities.md), read once; null when the docs are not shipped. */
function agentGuide(): string | null {
  if (guide === undefined) {
    try {
      guide = fs.readFileSync(fileURLToPath(new URL('../../../docs/entities.md', import.meta.url)), 'utf8');
    } catch {
      guide = null;
    }
  }
  return guide;
}

export function buildLlmsFullTxt(deps: Deps): string {
  const full = agentGuide();
  return `${buildLlmsTxt(deps)}\n${full ? `\n---\n\n${full}` : ''}`;
}
