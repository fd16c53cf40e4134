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

export const API_CATALOG_PATH = '/.well-known/api-catalog';
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
/** The `Link` header the site's documents carry to the catalog (RFC 9727 section 3). */
export const API_CATALOG_LINK = `<${API_CATALOG_PATH}>; rel="api-catalog"`;

export function buildApiCatalog(deps: Deps) {
  const { config } = deps;
  const urls = agentApiUrls(deps);
  const restApi = `${config.baseUrl}/v1`;
  return {
    linkset: [
      {
        anchor: `${urls.site}${API_CATALOG_PATH}`,
        item: [{ href: restApi }, { href: urls.generate }, { href: `${urls.site}/mcp` }],
      },
      {
        anchor: restApi,
        'service-desc': [{ href: `${config.baseUrl}/v1/openapi.json`, type: 'application/vnd.oai.openapi+json' }],
        'service-doc': [{ href: `${config.baseUrl}/docs`, type: 'text/html' }],
      },
      {
        anchor: urls.generate,
        'service-desc': [
          { href: urls.discovery, type: 'application/json' },
          { href: urls.schema, type: 'application/schema+json' },
          { href: `${urls.site}/openapi.json`, type: 'application/vnd.oai.openapi+json' },
        ],
        'service-doc': [
          { href: urls.docs, type: 'text/plain' },
          { href: `${urls.site}/llms-full.txt`, type: 'text/plain' },
        ],
      },
      {
        anchor: `${urls.site}/mcp`,
        'service-desc': [{ href: `${urls.site}/.well-known/mcp/server-card.json`, type: 'application/json' }],
        'service-doc': [{ href: `${urls.site}/llms-full.txt`, type: 'text/plain' }],
      },
    ],
  };
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
