/**
 * Discovery an agent's tools look for: the RFC 9727 API catalog (a linkset whose every link
 * resolves), its `Link` header on the site's documents, `/llms-full.txt` with the whole agent
 * guide, and the discovery document's links to all of them.
 */
import { validate as validateDiscovery } from 'mppx/discovery';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';

let t: TestApp & { url: string };

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const CATALOG_LINK = '</.well-known/api-catalog>; rel="api-catalog"';

describe('API catalog (RFC 9727)', () => {
  it('is a linkset of the REST API, the agent API and the MCP server, every link resolving', async () => {
    const res = await fetch(`${t.url}/.well-known/api-catalog`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(
      /^application\/linkset\+json; profile="https:\/\/www\.rfc-editor\.org\/info\/rfc9727"/,
    );
    expect(res.headers.get('link')).toBe(CATALOG_LINK);
    const { linkset } = (await res.json()) as { linkset: Array<Record<string, unknown> & { anchor: string }> };
    expect(linkset[0]?.anchor).toBe(`${t.url}/.well-known/api-catalog`);
    const items = (linkset[0]?.item as { href: string }[]).map((link) => link.href);
    expect(items).toEqual([`${t.url}/v1`, `${t.url}/api/entities/generate`, `${t.url}/.well-known/mcp/server-card.json`]);
    // Every item is described by the entry anchored at it (RFC 9264), and no entry describes nothing.
    expect(linkset.slice(1).map((entry) => entry.anchor)).toEqual(items);
    const links = linkset.flatMap((entry) =>
      Object.entries(entry)
        .filter(([rel]) => rel !== 'anchor')
        .flatMap(([rel, targets]) => (targets as { href: string; type?: string }[]).map((link) => ({ rel, ...link }))),
    );
    expect(links.length).toBeGreaterThanOrEqual(11);
    for (const link of links) {
      const answer = await fetch(link.href);
      expect(answer.status, `${link.rel} ${link.href}`).toBe(200);
      expect(link.type, `${link.rel} ${link.href} names its type`).toBeTruthy();
      expect(answer.headers.get('content-type')?.split(';')[0], `${link.rel} ${link.href}`).toBe(link.type);
    }
    const head = await fetch(`${t.url}/.well-known/api-catalog`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('link')).toBe(CATALOG_LINK);
  });

  it('is announced by the site root, llms.txt and the discovery document', async () => {
    for (const path of ['/', '/llms.txt', '/.well-known/service-agent-services.json']) {
      expect((await fetch(`${t.url}${path}`)).headers.get('link'), path).toBe(CATALOG_LINK);
    }
    const discovery = (await (await fetch(`${t.url}/.well-known/service-agent-services.json`)).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      llms_full_txt: `${t.url}/llms-full.txt`,
      api_catalog_url: `${t.url}/.well-known/api-catalog`,
      mcp: { url: `${t.url}/mcp`, server_card: `${t.url}/.well-known/mcp/server-card.json` },
    });
  });

  it('serves the agent OpenAPI document at the site root: x-payment-info with real methods, valid for MPP discovery', async () => {
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('link')).toBe(CATALOG_LINK);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { 'x-payment-info'?: unknown; responses: Record<string, unknown> }>>;
      'x-service-info': unknown;
      'x-related': { rest_api: string };
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(validateDiscovery(doc)).toEqual([]);
    const operation = doc.paths['/api/entities/generate']?.post;
    expect(operation?.['x-payment-info']).toEqual({
      offers: [expect.objectContaining({ method: 'sandbox', intent: 'charge', amount: '100', currency: 'aud' })],
    });
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '402']));
    expect(doc['x-service-info']).toMatchObject({ docs: { llms: `${t.url}/llms.txt` } });
    expect((await fetch(doc['x-related'].rest_api)).status).toBe(200);
    const discovery = (await (await fetch(`${t.url}/.well-known/service-agent-services.json`)).json()) as {
      agent_openapi_url: string;
      services: { payment: { standard: { methods: { method: string }[]; receipt_header: string } } }[];
    };
    expect(discovery.agent_openapi_url).toBe(`${t.url}/openapi.json`);
    expect(discovery.services[0]?.payment.standard).toMatchObject({
      receipt_header: 'Payment-Receipt',
      methods: [expect.objectContaining({ method: 'sandbox' })],
    });
  });

  it('serves the whole agent guide at /llms-full.txt', async () => {
    const [short, full] = await Promise.all([
      fetch(`${t.url}/llms.txt`).then((r) => r.text()),
      fetch(`${t.url}/llms-full.txt`).then((r) => r.text()),
    ]);
    expect(full.startsWith(short)).toBe(true);
    expect(full).toContain('## MCP server');
    expect(full).toContain('## Callbacks (`callback_url`)');
  });
});

describe("the catalog's API bases", () => {
  it('GET /v1 describes the REST API without a key, linking its document and docs', async () => {
    const res = await fetch(`${t.url}/v1`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('link')).toContain(`<${t.url}/v1/openapi.json>; rel="service-desc"`);
    expect(await res.json()).toMatchObject({ openapi_url: `${t.url}/v1/openapi.json`, docs_url: `${t.url}/docs` });
    // The operations under it still need the key.
    expect((await fetch(`${t.url}/v1/collections`)).status).toBe(401);
  });

  it('GET /api/entities/generate says how to POST there', async () => {
    const res = await fetch(`${t.url}/api/entities/generate`);
    expect(res.status).toBe(200);
    expect(res.headers.get('link')).toContain(`<${t.url}/openapi.json>; rel="service-desc"`);
    expect(await res.json()).toMatchObject({ method: 'POST', schema_url: `${t.url}/schemas/entity-generation.schema.json` });
  });
});
