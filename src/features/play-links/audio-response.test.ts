import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { isPlayStart } from './audio-response.js';
import { tokenFromPlayLinkUrl } from './urls.js';

describe('isPlayStart', () => {
  it('counts GETs from the start only', () => {
    expect(isPlayStart('GET', undefined)).toBe(true);
    expect(isPlayStart('GET', 'bytes=0-')).toBe(true);
    expect(isPlayStart('GET', 'bytes=100-')).toBe(false);
    expect(isPlayStart('HEAD', undefined)).toBe(false);
  });
});

describe('tokenFromPlayLinkUrl', () => {
  const base = 'https://api.example.com';
  it.each([
    ['https://api.example.com/p/Abc_def-12345678', 'Abc_def-12345678'],
    ['https://api.example.com/p/Abc_def-12345678/', 'Abc_def-12345678'],
    ['https://api.example.com/p/Abc_def-12345678.mp3', 'Abc_def-12345678'],
    ['https://api.example.com/p/Abc_def-12345678/embed?x=1', 'Abc_def-12345678'],
    ['https://evil.example.com/p/Abc_def-12345678', null],
    ['https://api.example.com/x/p/Abc_def-12345678', null],
    ['https://api.example.com/p/Abc_def-12345678/meta', null],
    ['javascript:alert(1)', null],
    ['not a url', null],
  ])('%s → %s', (url, token) => {
    expect(tokenFromPlayLinkUrl(base, url)).toBe(token);
  });
});

describe('play-link settings', () => {
  it('lets cache entries outlive presigned audio URLs (they are signed again) and refuses a bad audio base URL', () => {
    expect(loadConfig({ PLAY_LINK_CACHE_TTL_MS: '600000', AUDIO_URL_TTL_SECONDS: '60' }).playLinks.cacheTtlMs).toBe(600000);
    expect(() => loadConfig({ AUDIO_PUBLIC_BASE_URL: 'ftp://x' })).toThrow(/AUDIO_PUBLIC_BASE_URL/);
  });
});
