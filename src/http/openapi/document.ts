/**
 * Finishes the document @fastify/swagger generates from the route schemas: the /v1 conventions,
 * the routes that live outside /v1 (each feature describes its own), path-level servers, the
 * webhooks, tags, and named schemas in `components.schemas`.
 */
import { hoistNamedSchemas } from './components.js';
import { addRequestIdHeader, applyV1Conventions, SHARED_HEADERS } from './conventions.js';

export interface DocumentContributions {
  /** Path items of routes Fastify does not describe (public pages' JSON, the agent API). */
  paths: Record<string, Record<string, unknown>>;
  /** The OpenAPI 3.1 `webhooks` object. */
  webhooks: Record<string, unknown>;
  tags: { name: string; description: string }[];
}

export interface DocumentUrls {
  baseUrl: string;
  siteUrl: string;
}

type Document = Record<string, unknown> & {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components?: Record<string, Record<string, unknown>>;
};

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** `/v1` and `/p` live under BASE_URL; the agent API and the site's documents under SITE_URL. */
const servedFromBase = (path: string) => path.startsWith('/v1/') || path.startsWith('/p/') || path === '/oembed';

export function completeDocument(document: Document, urls: DocumentUrls, extra: DocumentContributions): Document {
  const paths: Document['paths'] = { ...document.paths, ...(extra.paths as Document['paths']) };
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      if (path.startsWith('/v1/')) applyV1Conventions(method, operation);
      else addRequestIdHeader(operation);
    }
    if (!servedFromBase(path)) {
      item.servers = [{ url: urls.siteUrl, description: 'SITE_URL: the public site and the agent API' }] as never;
    }
  }
  const named = { paths, webhooks: extra.webhooks };
  const schemas = hoistNamedSchemas(named, (document.components?.schemas ?? {}) as never);
  return {
    ...document,
    tags: extra.tags,
    paths: named.paths,
    webhooks: named.webhooks,
    components: { ...document.components, schemas: sortKeys(schemas), headers: SHARED_HEADERS },
  };
}

const sortKeys = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
