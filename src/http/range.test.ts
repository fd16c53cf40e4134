import { describe, expect, it } from 'vitest';
import { contentRange, parseRange, requestedRange } from './range.js';

describe('parseRange', () => {
  it.each([
    // No header, or one we ignore (the whole body is served).
    [undefined, null],
    ['items=0-1', null],
    ['bytes=-', null],
    ['bytes=', null],
    ['bytes=abc', null],
    ['bytes=1-2-3', null],
    ['bytes=0x10-', null],
    ['bytes=+5-', null],
    ['bytes=5-1', null],
    // Several ranges: answered with the whole body.
    ['bytes=0-1,5-9', null],
    ['bytes=0-1, 5-9', null],
    ['bytes=-5,-10', null],
    // One range.
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=0-0', { start: 0, end: 0 }],
    ['BYTES=0-99', { start: 0, end: 99 }],
    [' bytes=0-99 ', { start: 0, end: 99 }],
    // Open-ended.
    ['bytes=10-', { start: 10, end: 999 }],
    ['bytes=999-', { start: 999, end: 999 }],
    // Suffix, including one longer than the body (the whole body, RFC 9110 §14.1.2).
    ['bytes=-100', { start: 900, end: 999 }],
    ['bytes=-1000', { start: 0, end: 999 }],
    ['bytes=-5000', { start: 0, end: 999 }],
    // A last position beyond the end is cut to the end.
    ['bytes=900-5000', { start: 900, end: 999 }],
    ['bytes=0-99999999999999999999', { start: 0, end: 999 }],
    // Unsatisfiable: first position at or beyond the end, or an empty suffix.
    ['bytes=1000-', 'unsatisfiable'],
    ['bytes=1000-2000', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
  ] as const)('%j of 1000 bytes → %j', (header, expected) => {
    expect(parseRange(header, 1000)).toEqual(expected);
  });

  it('answers an empty body whole for a suffix and 416 for a first position', () => {
    expect(parseRange('bytes=-10', 0)).toBeNull();
    expect(parseRange('bytes=0-', 0)).toBe('unsatisfiable');
  });
});

describe('requestedRange', () => {
  const etag = '"abc"';
  it('honours Range only while If-Range names the current ETag', () => {
    expect(requestedRange({ range: 'bytes=0-9' }, 100, etag)).toEqual({ start: 0, end: 9 });
    expect(requestedRange({ range: 'bytes=0-9', 'if-range': etag }, 100, etag)).toEqual({ start: 0, end: 9 });
    expect(requestedRange({ range: 'bytes=0-9', 'if-range': '"other"' }, 100, etag)).toBeNull();
    expect(requestedRange({ range: 'bytes=0-9', 'if-range': 'Wed, 21 Oct 2015 07:28:00 GMT' }, 100, etag)).toBeNull();
    expect(requestedRange({ 'if-range': etag }, 100, etag)).toBeNull();
  });
});

describe('contentRange', () => {
  it('writes the 206 and 416 forms', () => {
    expect(contentRange({ start: 0, end: 99 }, 100)).toBe('bytes 0-99/100');
    expect(contentRange('unsatisfiable', 100)).toBe('bytes */100');
  });
});
