import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

/** The recursive definition the iterative one must match byte for byte (stored hashes depend on it). */
function reference(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(v).sort()) out[key] = sortKeys((v as Record<string, unknown>)[key]);
      return out;
    }
    return v;
  };
  return JSON.stringify(sortKeys(value));
}

describe('canonicalJson', () => {
  it('equals JSON.stringify of a key-sorted copy', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 500 },
    );
    expect(canonicalJson({ b: [1, undefined, { d: undefined, c: 'x' }], a: null })).toBe(
      reference({ b: [1, undefined, { d: undefined, c: 'x' }], a: null }),
    );
  });

  it('does not overflow the stack on 100,000 levels of nesting', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { k: deep };
    const text = canonicalJson(deep);
    expect(text.length).toBeGreaterThan(100_000);
    expect(text.endsWith(']}') || text.endsWith('}]')).toBe(true);
  });
});
