import { describe, expect, it } from 'vitest';
import { referenceCsp } from './csp.js';

describe('referenceCsp', () => {
  it('upgrades insecure requests only when BASE_URL is https', () => {
    expect(referenceCsp('http://docs.test:3000')).not.toContain('upgrade-insecure-requests');
    expect(referenceCsp('http://localhost:3000')).not.toContain('upgrade-insecure-requests');
    expect(referenceCsp('https://voicename.example')).toContain('upgrade-insecure-requests');
  });

  it('allows scripts from this origin only, and API calls to it and to BASE_URL', () => {
    const csp = referenceCsp('https://api.voicename.example');
    expect(csp).toContain("script-src 'self'");
    expect(csp.join('; ')).not.toMatch(/script-src[^;]*(unsafe|https:|\*)/);
    expect(csp).toContain("connect-src 'self' https://api.voicename.example");
  });
});
