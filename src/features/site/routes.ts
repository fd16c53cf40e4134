/**
 * The root of the site: the product page at `/` (its sample recording is an asset) and the
 * favicons. The app serves every path on every host (BASE_URL and SITE_URL may name the same
 * server or two), so `/` answers on both; its links are absolute, each to the address that serves
 * what it points at.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Deps } from '../../deps.js';
import { API_CATALOG_LINK } from '../agent-api/catalog.js';
import { applyPageSecurity } from '../../http/security-headers.js';
import { homePage } from '../../web/views/home.js';
import { PRICE } from '../agent-api/price.js';
import { agentApiUrls } from '../agent-api/urls.js';
import { profileUrls } from '../profiles/urls.js';
import { SAMPLE_NAME } from './sample-name.js';

/** No script at all: our own styles, icons and sample recording, and links (no forms). */
const HOME_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
];
/** The page holds nothing personal; a few minutes in shared caches is fine. */
const HOME_CACHE = 'public, max-age=300';
/** Icons change rarely and their addresses are fixed (browsers ask for `/favicon.ico` by name). */
const ICON_CACHE = 'public, max-age=86400';

export function siteRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const { config } = deps;
    const page = homePage({
      styleUrl: deps.assets.url('home.css'),
      links: {
        dashboard: `${config.baseUrl}/dashboard`,
        docs: `${config.baseUrl}/docs`,
        pronunciationGuide: `${config.baseUrl}/docs/pronunciation`,
        privacyGuide: `${config.baseUrl}/docs/privacy`,
        discovery: agentApiUrls(deps).discovery,
        llmsTxt: agentApiUrls(deps).docs,
        profileExample: profileUrls(deps).profile('your-agent'),
      },
      sample: {
        name: `${SAMPLE_NAME.given} ${SAMPLE_NAME.family}`,
        respelling: SAMPLE_NAME.respelling,
        audioUrl: deps.assets.url(SAMPLE_NAME.asset),
      },
      agentPrice: `${PRICE.amount} ${PRICE.displayCurrency}`,
    }).toString();
    const https = config.baseUrl.startsWith('https:');

    app.get('/', { schema: { hide: true } }, async (_request, reply) =>
      applyPageSecurity(reply, { csp: HOME_CSP, https })
        .header('cache-control', HOME_CACHE)
        .header('link', API_CATALOG_LINK)
        .type('text/html; charset=utf-8')
        .send(page),
    );

    const icon = (name: string) => {
      const asset = deps.assets.byName(name);
      if (!asset) throw new Error(`missing asset ${name}`);
      return async (_request: unknown, reply: FastifyReply) =>
        reply
          .header('cache-control', ICON_CACHE)
          .header('x-content-type-options', 'nosniff')
          .header('cross-origin-resource-policy', 'cross-origin')
          .type(asset.contentType)
          .send(asset.body);
    };
    app.get('/favicon.ico', { schema: { hide: true } }, icon('favicon.ico'));
    app.get('/favicon.svg', { schema: { hide: true } }, icon('favicon.svg'));
  };
}
