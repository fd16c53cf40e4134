/**
 * `/docs`: the guides of `docs/*.md` as server-rendered pages, and the API reference at
 * `/docs/reference`, drawn by Scalar in the browser from `/v1/openapi.json`. Everything comes
 * from this origin: Scalar's bundle is served here (hashed, immutable, brotli or gzip), its
 * default fonts, telemetry, proxy and AI agent are switched off, and the CSP allows no other host.
 * Pages are rendered on the first request and kept for the life of the process; the guides'
 * `http://localhost:3000` (the reader's own server) is shown as this server's BASE_URL.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import type { Deps } from '../../deps.js';
import { applyPageSecurity, type PageSecurity } from '../../http/security-headers.js';
import { GUIDE_CSP, referenceCsp } from './csp.js';
import { loadGuides } from './guides.js';
import { type ScalarBundle, scalarBundleLoader } from './scalar-bundle.js';
import { guidePage, landingPage, notFoundPage, REFERENCE_PATH, referencePage } from './views.js';

/** Pages hold nothing personal; a few minutes in shared caches is fine (like the product page). */
const PAGE_CACHE = 'public, max-age=300';
const SPEC_URL = '/v1/openapi.json';

/** What Scalar is told: our look, and nothing that reaches another host. */
function scalarConfiguration(): Record<string, unknown> {
  return {
    title: 'voicename API',
    withDefaultFonts: false,
    telemetry: false,
    // Its "Open API Client" button links to Scalar's hosted client, with our document's URL.
    hideClientButton: true,
    showDeveloperTools: 'never',
    showToolbar: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    hideDarkModeToggle: true,
    forceDarkModeState: 'light',
    documentDownloadType: 'json',
    defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
    theme: 'default',
    persistAuth: false,
    // "Try it" starts with the API key field open: every /v1 operation needs one.
    authentication: { preferredSecurityScheme: 'apiKey' },
  };
}

export function docsRoutes(deps: Deps) {
  return async (app: FastifyInstance) => {
    const { config } = deps;
    const https = config.baseUrl.startsWith('https:');
    const guideSecurity: PageSecurity = { csp: GUIDE_CSP, https };
    const referenceSecurity: PageSecurity = { csp: referenceCsp(config.baseUrl), https };
    const frame = {
      styleUrl: deps.assets.url('docs.css'),
      links: { home: `${config.baseUrl}/`, dashboard: `${config.baseUrl}/dashboard` },
    };
    const scalar = scalarBundleLoader();

    let rendered: { pages: Map<string, string>; landing: string; missing: string } | null = null;
    const pages = () => {
      if (rendered) return rendered;
      const guides = loadGuides(config.baseUrl);
      rendered = {
        pages: new Map(guides.map((g) => [g.slug, guidePage(frame, guides, g).toString()])),
        landing: landingPage(frame, guides).toString(),
        missing: notFoundPage(frame, guides).toString(),
      };
      return rendered;
    };
    let reference: string | null = null;

    const sendPage = (reply: FastifyReply, security: PageSecurity, body: string, status = 200) =>
      applyPageSecurity(reply.code(status), security)
        .header('cache-control', PAGE_CACHE)
        .type('text/html; charset=utf-8')
        .send(body);

    app.get('/docs', { schema: { hide: true } }, async (_request, reply) => sendPage(reply, guideSecurity, pages().landing));

    app.get(REFERENCE_PATH, { schema: { hide: true } }, async (_request, reply) => {
      reference ??= referencePage(frame, {
        scriptUrls: [scalar().url, deps.assets.url('docs-reference.ts')],
        configuration: scalarConfiguration(),
        specUrl: SPEC_URL,
      }).toString();
      return sendPage(reply, referenceSecurity, reference);
    });

    app.get<{ Params: { slug: string } }>('/docs/:slug', { schema: { hide: true } }, async (request, reply) => {
      const { pages: bySlug, missing } = pages();
      const body = bySlug.get(request.params.slug);
      return body ? sendPage(reply, guideSecurity, body) : sendPage(reply, guideSecurity, missing, 404);
    });

    app.get<{ Params: { file: string } }>('/docs/assets/:file', { schema: { hide: true } }, async (request, reply) =>
      sendBundle(request, reply, scalar(), request.params.file),
    );
  };
}

async function sendBundle(request: FastifyRequest, reply: FastifyReply, bundle: ScalarBundle, file: string) {
  if (`/docs/assets/${file}` !== bundle.url) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
  reply
    .header('cache-control', 'public, max-age=31536000, immutable')
    .header('etag', bundle.etag)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff')
    .type('text/javascript; charset=utf-8');
  const known = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  if (known?.includes(bundle.etag)) return reply.code(304).send();
  // Brotli whenever the browser takes it (a fifth smaller than gzip), though browsers list gzip first.
  const accepted = new Negotiator(request).encodings(['br', 'gzip']);
  const encoding = accepted.includes('br') ? 'br' : accepted.includes('gzip') ? 'gzip' : null;
  if (encoding) {
    try {
      const body = await (encoding === 'br' ? bundle.br : bundle.gzip);
      return reply.header('content-encoding', encoding).send(body);
    } catch (error) {
      request.log.warn({ err: error }, 'could not compress the API reference bundle; sending it uncompressed');
    }
  }
  return reply.send(bundle.identity);
}
