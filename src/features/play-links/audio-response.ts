/** HTTP byte ranges (RFC 9110 §14) for one range; several ranges are answered with the whole body. */
export type RangeResult = { start: number; end: number } | 'unsatisfiable' | null;

export function parseRange(header: string | undefined, size: number): RangeResult {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Whether a request for `/p/<token>.mp3` is the start of a play (not a seek or a probe). */
export function isPlayStart(method: string, range: string | undefined): boolean {
  if (method !== 'GET') return false;
  return range === undefined || /^bytes=0-/.test(range.trim());
}
