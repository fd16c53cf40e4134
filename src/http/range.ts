/**
 * HTTP byte ranges (RFC 9110 §14), shared by every route that serves audio bytes so they all
 * answer a `Range` header alike. One range is served as 206; several ranges are answered with the
 * whole body (a server may ignore `Range`, and no client of ours asks for multipart answers).
 */

/** A satisfiable single range (inclusive), `unsatisfiable` (416), or null: serve the whole body. */
export type RangeResult = { start: number; end: number } | 'unsatisfiable' | null;

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/i;

/**
 * The byte range `header` selects in a body of `size` bytes. Malformed headers, several ranges
 * and a last position before the first are ignored (RFC 9110 §14.2: a server may ignore Range,
 * and an invalid range-spec makes the header invalid). A suffix longer than the body selects the
 * whole body, and a last position past the end is cut to the end (§14.1.2).
 */
export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return null;
  const match = SINGLE_RANGE.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    // An empty body has no byte to select: serve it whole (and empty) rather than a 416.
    if (size === 0) return null;
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

/**
 * The range of a request for a body of `size` bytes whose strong validator is `etag`: `If-Range`
 * with another validator (or a date, which our strong ETags never match) means the client's copy
 * changed, so the whole body is sent (RFC 9110 §13.1.5).
 */
export function requestedRange(
  headers: { range?: string | undefined; 'if-range'?: string | undefined },
  size: number,
  etag: string,
): RangeResult {
  const ifRange = headers['if-range'];
  if (ifRange !== undefined && ifRange.trim() !== etag) return null;
  return parseRange(headers.range, size);
}

/** `Content-Range` of a 206 answer, or of a 416 answer when `range` is `unsatisfiable`. */
export function contentRange(range: { start: number; end: number } | 'unsatisfiable', size: number): string {
  return range === 'unsatisfiable' ? `bytes */${size}` : `bytes ${range.start}-${range.end}/${size}`;
}
