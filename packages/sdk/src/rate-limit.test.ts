import { describe, expect, it } from 'vitest';
import { parseRateLimits } from './rate-limit.js';

describe('parseRateLimits', () => {
  it('reads the policy and the current standing of each named limit', () => {
    const headers = new Headers({ 'ratelimit-policy': '"v1";q=600;w=60', ratelimit: '"v1";r=599;t=42' });
    expect(parseRateLimits(headers)).toEqual([{ policy: 'v1', limit: 600, windowSeconds: 60, remaining: 599, resetSeconds: 42 }]);
  });

  it('pairs several limits by name, skips parameters it does not know, and tolerates spacing', () => {
    const headers = new Headers({
      'ratelimit-policy': '"day";q=1000;w=86400, "minute";q=10;w=60;qu="requests"',
      ratelimit: '"minute";r=0;t=3;pk=:cHJvamVjdA==:, "day" ; r=990 ; t=40000',
    });
    expect(parseRateLimits(headers)).toEqual([
      { policy: 'minute', limit: 10, windowSeconds: 60, remaining: 0, resetSeconds: 3 },
      { policy: 'day', limit: 1000, windowSeconds: 86400, remaining: 990, resetSeconds: 40000 },
    ]);
  });

  it('answers nothing when the fields are absent or unreadable', () => {
    expect(parseRateLimits(new Headers())).toEqual([]);
    expect(parseRateLimits(new Headers({ ratelimit: 'limit=5' }))).toEqual([]);
  });
});
