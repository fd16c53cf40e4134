import { describe, expect, it } from 'vitest';
import { backoffMs, retryAfterMs } from './transport.js';

describe('retryAfterMs', () => {
  it('reads delta-seconds and HTTP dates, and ignores what it cannot read', () => {
    const now = Date.parse('2026-01-15T12:00:00Z');
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 15 Jan 2026 12:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ 'retry-after': 'Thu, 15 Jan 2026 11:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  });
});

describe('backoffMs', () => {
  it('doubles per attempt between half and all of its ceiling, capped at 8 s', () => {
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, () => 0))).toEqual([250, 500, 1000]);
    expect([1, 2, 3].map((attempt) => backoffMs(attempt, () => 1))).toEqual([500, 1000, 2000]);
    expect(backoffMs(20, () => 1)).toBe(8000);
  });
});
