/**
 * How long the event loop was held while some work ran. Two figures: monitorEventLoopDelay's
 * longest delay (wall clock, so it also counts the time a busy shared machine gave our CPU to
 * other processes), and the longest delay of a 5 ms interval probe during which the main thread
 * was running (the delay, capped by the main thread's CPU time meanwhile): what the service's
 * own code holds the loop for, which tests assert on.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * The main thread's CPU time in ms: Linux's per-thread scheduler figure (the main thread's id
 * is the process id), else the whole process's (which also counts GC helpers, worker threads
 * and the thread pool, so it can only make a stall look longer).
 */
function mainThreadCpuMs(): number {
  try {
    const [onCpuNs] = fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ');
    return Number(onCpuNs) / 1e6;
  } catch {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  }
}

export interface Stalls<T> {
  result: T;
  elapsedMs: number;
  /** Longest delay of the event loop, wall clock. */
  maxDelayMs: number;
  /** Longest delay during which the main thread was on the CPU. */
  maxBusyStallMs: number;
}

const PROBE_MS = 5;

export async function measureStalls<T>(work: () => Promise<T>): Promise<Stalls<T>> {
  // The caller's garbage (files built for the test) is not the work's doing: collect it first.
  (globalThis as { gc?: () => void }).gc?.();
  const histogram = monitorEventLoopDelay({ resolution: PROBE_MS });
  let maxBusyStallMs = 0;
  let lastAt = performance.now();
  let lastCpu = mainThreadCpuMs();
  const sample = () => {
    const now = performance.now();
    const cpu = mainThreadCpuMs();
    const busy = Math.min(now - lastAt - PROBE_MS, cpu - lastCpu);
    if (busy > maxBusyStallMs) maxBusyStallMs = busy;
    lastAt = now;
    lastCpu = cpu;
  };
  const probe = setInterval(sample, PROBE_MS);
  histogram.enable();
  const started = performance.now();
  try {
    const result = await work();
    // The stretch since the last tick counts too (all of it, when the work never let a tick run).
    sample();
    return { result, elapsedMs: performance.now() - started, maxDelayMs: histogram.max / 1e6, maxBusyStallMs };
  } finally {
    clearInterval(probe);
    histogram.disable();
  }
}
