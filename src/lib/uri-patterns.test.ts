import { fullFormats } from 'ajv-formats/dist/formats.js';
import { describe, expect, it } from 'vitest';
import { URI_PATTERN, URI_REFERENCE_PATTERN } from './uri-patterns.js';

// Strings where the two formats and the case-insensitivity matter: schemes, hosts, IPv4/IPv6
// literals, percent-escapes in both cases, characters RFC 3986 refuses, relative references.
const SAMPLES = [
  'https://example.com/a/b?c=d#e',
  'HTTPS://EXAMPLE.COM/PATH%2F%c3%A9',
  'http://127.0.0.1:8080/',
  'https://[::1]/x',
  'https://[2001:DB8::8A2E:370:7334]:443/',
  'https://[v1.FE]/',
  'https://[gg::1]/',
  'https://user:PASS@host/',
  'https://example.com/a b',
  'https://example.com/<script>',
  'https://example.com/"quoted"',
  'https://exa"mple.com/',
  'https://example.com/%zz',
  'https://example.com/%4',
  'https://example.com/{x}',
  'https://example.com/a|b',
  'https://example.com/a\\b',
  'https://example.com/é',
  'mailto:someone@example.com',
  'urn:isbn:0451450523',
  '1http://bad-scheme',
  '/avatars/a.png',
  '/a?b=c#d',
  '//example.com/x',
  'relative/path',
  '#fragment',
  '',
  'https://example.com/#a#b',
  'HTTP://EXAMPLE.COM:99999/',
];

describe('URI patterns', () => {
  it('accept exactly what ajv-formats full `uri` and `uri-reference` accept', () => {
    const uri = new RegExp(URI_PATTERN, 'u');
    const uriReference = new RegExp(URI_REFERENCE_PATTERN, 'u');
    const isUri = fullFormats.uri as (value: string) => boolean;
    const uriReferenceFormat = fullFormats['uri-reference'] as RegExp;
    for (const sample of SAMPLES) {
      expect(uri.test(sample), sample).toBe(isUri(sample));
      expect(uriReference.test(sample), sample).toBe(uriReferenceFormat.test(sample));
    }
    // The corpus exercises both answers of each format.
    expect(new Set(SAMPLES.map((sample) => uri.test(sample))).size).toBe(2);
    expect(new Set(SAMPLES.map((sample) => uriReference.test(sample))).size).toBe(2);
  });
});
