/** Whether a request for `/p/<token>.mp3` is the start of a play (not a seek or a probe). */
export function isPlayStart(method: string, range: string | undefined): boolean {
  if (method !== 'GET') return false;
  return range === undefined || /^bytes=0-/.test(range.trim());
}
