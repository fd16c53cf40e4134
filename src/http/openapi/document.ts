/**
 * Finishes the document @fastify/swagger generates from the route schemas: the /v1 conventions,
 * the routes that live outside /v1 (each feature describes its own), path-level servers, the
 * webhooks, tags, and named schemas in `components.schemas`.
 */
import { NFC_DESCRIPTION, NFC_KEYWORD } from '../../lib/text.js';
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
    paths: withoutServerKeywords(named.paths) as Document['paths'],
    webhooks: withoutServerKeywords(named.webhooks),
    components: {
      ...document.components,
      schemas: sortKeys(withoutServerKeywords(schemas) as Record<string, unknown>),
      headers: SHARED_HEADERS,
    },
  };
}

/**
 * A copy without the keyword only the server's validator knows (NFC, which composes names as they
 * are validated), told in the field's description instead, so every schema of the document is
 * plain JSON Schema 2020-12 that strict validators compile. Copied, never changed in place: the
 * route schemas the server validates with may be the same objects.
 */
function withoutServerKeywords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutServerKeywords);
  if (typeof value !== 'object' || value === null) return value;
  const { [NFC_KEYWORD]: nfc, ...rest } = value as Record<string, unknown>;
  const copy = Object.fromEntries(Object.entries(rest).map(([key, item]) => [key, withoutServerKeywords(item)]));
  if (nfc !== true) return nfc === undefined ? copy : { ...copy, [NFC_KEYWORD]: nfc };
  return { ...copy, description: [copy.description, NFC_DESCRIPTION].filter(Boolean).join(' ') };
}

const sortKeys = <T>(record: Record<string, T>) =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
