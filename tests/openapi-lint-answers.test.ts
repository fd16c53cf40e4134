/**
 * What the API documents say the static documents and the play link's audio URL answer is what
 * they answer, so Redocly's `recommended` rules pass with no ignore file (`npm run lint:openapi`):
 * the discovery document and the request schema are refused only by the HTTP server (431, headers
 * over 16 KiB), and the audio URL answers its 302, a 404 for an unknown token and else a 500 (its
 * 200 is the MP3 at the end of the redirect, which clients that follow redirects receive).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';

type Responses = Record<string, { content?: Record<string, unknown> }>;
type Document = { paths: Record<string, Record<string, { responses: Responses }>> };

let t: TestApp & { url: string };
let v1: Document;
let agent: Document;

beforeAll(async () => {
  t = await startTestServer();
  v1 = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as Document;
  agent = (await (await fetch(`${t.url}/openapi.json`)).json()) as Document;
});
afterAll(() => t.close());

const STATIC_DOCUMENTS = ['/.well-known/service-agent-services.json', '/schemas/entity-generation.schema.json'];

describe('documented answers Redocly asks for', () => {
  it('the static documents answer 431 to oversized headers, as both documents declare', async () => {
    for (const path of STATIC_DOCUMENTS) {
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(200);
      const refused = await fetch(`${t.url}${path}`, { headers: { 'x-padding': 'a'.repeat(20_000) } });
      expect(refused.status, path).toBe(431);
      for (const document of [v1, agent]) expect(Object.keys(document.paths[path]!.get!.responses), path).toContain('431');
    }
  });

  it('the audio URL declares its 302 (and the MP3 it leads to), 404, 410 and the failure envelope; an unknown token is a 404', async () => {
    const responses = v1.paths['/p/{token}.mp3']!.get!.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '302', '404', '410', 'default']);
    expect(Object.keys(responses['200']!.content ?? {})).toEqual(['audio/mpeg']);
    expect(Object.keys(responses.default!.content ?? {})).toEqual(['application/json']);
    const unknown = await fetch(`${t.url}/p/AAAAAAAAAAAAAAAA.mp3`, { redirect: 'manual' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('no lint exceptions are kept: the ignore file is gone', () => {
    expect(fs.existsSync('.redocly.lint-ignore.yaml')).toBe(false);
    expect(fs.readFileSync('redocly.yaml', 'utf8')).not.toMatch(/^\s*rules:/m);
  });
});
