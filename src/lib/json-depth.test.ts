import { describe, expect, it } from 'vitest';
import { jsonNestingExceeds, MAX_JSON_DEPTH } from './json-depth.js';

describe('jsonNestingExceeds', () => {
  it('counts nested objects and arrays, not brackets inside strings', () => {
    expect(jsonNestingExceeds('[]'.padStart(2), 1)).toBe(false);
    expect(jsonNestingExceeds('[[1]]', 1)).toBe(true);
    expect(jsonNestingExceeds('{"a":"[[[[\\"[["}', 1)).toBe(false);
    expect(jsonNestingExceeds('{"a":{"b":[]}}', 3)).toBe(false);
    expect(jsonNestingExceeds('{"a":{"b":[]}}', 2)).toBe(true);
    expect(jsonNestingExceeds('[1],[2],[3]', 1)).toBe(false);
  });

  it(`allows ${MAX_JSON_DEPTH} levels by default and refuses one more`, () => {
    expect(jsonNestingExceeds('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonNestingExceeds('['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonNestingExceeds('['.repeat(1_000_000))).toBe(true);
  });
});
