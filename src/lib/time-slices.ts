/**
 * Long synchronous work done in slices of the event loop. `pause()` costs nothing until the
 * current slice is used up; then it waits for the next turn of the loop (`setImmediate`), so
 * requests that arrived meanwhile are served before the work goes on. Slices of a few
 * milliseconds keep what any other request waits far below the 50 ms the service allows itself,
 * at the price of one loop turn per slice.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

export const DEFAULT_SLICE_MS = 5;

export function timeSlices(sliceMs = DEFAULT_SLICE_MS): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await nextTurn();
    sliceStart = performance.now();
  };
}

/** `items.map(work)` that pauses between items whenever its slice is used up. */
export async function mapInSlices<T, R>(
  items: readonly T[],
  work: (item: T, index: number) => R,
  pause = timeSlices(),
): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i++) {
    await pause();
    results.push(work(items[i] as T, i));
  }
  return results;
}
