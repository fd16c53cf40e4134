/**
 * How long the event loop was held while some work ran. Two figures: monitorEventLoopDelay's
 * longest delay (wall clock, so it also counts the time a busy shared machine gave our CPU to
 * other processes), and the longest delay of a 5 ms interval probe during which this process
 * was running (the delay, capped by the CPU time the process used meanwhile): what the
 * service's own code holds the loop for, which tests assert on.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Stalls<T> {
  result: T;
  elapsedMs: number;
  /** Longest delay of the event loop, wall clock. */
  maxDelayMs: number;
  /** Longest delay during which this process was on the CPU. */
  maxBusyStallMs: number;
}

const PROBE_MS = 5;

export async function measureStalls<T>(work: () => Promise<T>): Promise<Stalls<T>> {
  // The caller's garbage (files built for the test) is not the work's doing: collect it first.
  (globalThis as { gc?: () => void }).gc?.();
  const histogram = monitorEventLoopDelay({ resolution: PROBE_MS });
  let maxBusyStallMs = 0;
  let lastAt = performance.now();
  let lastCpu = process.cpuUsage();
  const probe = setInterval(() => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    const delay = now - lastAt - PROBE_MS;
    const busy = Math.min(delay, (cpu.user + cpu.system) / 1000);
    if (busy > maxBusyStallMs) maxBusyStallMs = busy;
    lastAt = now;
    lastCpu = process.cpuUsage();
  }, PROBE_MS);
  histogram.enable();
  const started = performance.now();
  try {
    const result = await work();
    return { result, elapsedMs: performance.now() - started, maxDelayMs: histogram.max / 1e6, maxBusyStallMs };
  } finally {
    clearInterval(probe);
    histogram.disable();
  }
}
