/**
 * The only code that starts ffmpeg. It is found in this order: `FFMPEG_PATH`, `ffmpeg` on
 * PATH, the static binary of the `@ffmpeg-installer/ffmpeg` npm package. Every run is spawned
 * without a shell, with a hard time limit, a cap on output size and network protocols off
 * (`-protocol_whitelist file,pipe` is added by the callers before each input), and, when
 * `limits` are given, caps on memory and CPU time: through util-linux `prlimit` (address space
 * and RLIMIT_CPU, enforced by the kernel) where it is installed, else by watching the process in
 * /proc (resident memory and CPU time, polled) where that exists. A hostile file must not be able
 * to take a gigabyte or minutes of CPU from everybody else.
 */
import { findOnPath, isExecutable } from '../lib/executables.js';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';

export class FfmpegTimeoutError extends Error {}
export class FfmpegOutputTooLargeError extends Error {}
/** The run was stopped by its memory or CPU cap. */
export class FfmpegResourceLimitError extends Error {}

export interface ResourceLimits {
  memoryBytes: number;
  cpuSeconds: number;
  /** util-linux `prlimit`, or null to watch the process through /proc instead. */
  prlimitPath: string | null;
}

/** `prlimit` on PATH, or null (not Linux, or util-linux missing). */
export const locatePrlimit = (envPath: string = process.env.PATH ?? ''): string | null => findOnPath('prlimit', envPath);

/** The binary of the optional `@ffmpeg-installer/ffmpeg` package, or null where it was not installed. */
function shippedFfmpeg(): string | null {
  try {
    return (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
  } catch {
    // An optional dependency: left out by `npm ci --omit=optional`, or no build for this platform.
    return null;
  }
}

/** Absolute path of an ffmpeg binary, or throws a message that says how to provide one. */
export function locateFfmpeg(
  configured: string | null,
  envPath: string = process.env.PATH ?? '',
  shipped: () => string | null = shippedFfmpeg,
): string {
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`FFMPEG_PATH=${configured} is not an executable file`);
    return configured;
  }
  const onPath = findOnPath('ffmpeg', envPath);
  if (onPath) return onPath;
  const packaged = shipped();
  if (packaged && isExecutable(packaged)) return packaged;
  throw new Error(
    'ffmpeg not found: install it (apt-get install ffmpeg), set FFMPEG_PATH, or install with optional dependencies (@ffmpeg-installer/ffmpeg)',
  );
}

export interface FfmpegRun {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface RunOptions {
  stdin?: Buffer;
  timeoutMs: number;
  maxStdoutBytes: number;
  /** Characters of stderr kept (default 16,384): enough for diagnostics, bounded for hostile inputs. */
  maxStderrChars?: number;
  limits?: ResourceLimits;
  /**
   * Run at background CPU priority (10 nicer than the server): used for a sender who already has more uploads
   * waiting, so a flood yields the CPU to everyone else's uploads and costs nothing when idle.
   */
  background?: boolean;
}

/** Niceness added for background runs: about a ninth of a normal run's CPU share when both compete. */
export const BACKGROUND_NICENESS = 10;

// Out-of-memory as ffmpeg reports it when an allocation fails under the address-space cap.
const OUT_OF_MEMORY = /Cannot allocate memory|out of memory|ENOMEM|std::bad_alloc/i;

/** Linux clock ticks per second (USER_HZ), which /proc/<pid>/stat counts CPU time in. */
const CLOCK_TICKS = 100;

/** CPU seconds and resident bytes of a running process, from /proc; null when unreadable. */
function procUsage(pid: number): { cpuSeconds: number; residentBytes: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces), which ends with the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime
    const pages = Number(fields[21]); // rss
    return { cpuSeconds: ticks / CLOCK_TICKS, residentBytes: pages * 4096 };
  } catch {
    return null;
  }
}

/** Runs ffmpeg with `args` (no shell); resolves with its output whatever the exit code. */
export function runFfmpeg(binary: string, args: string[], options: RunOptions): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    const limits = options.limits;
    const command = ['-hide_banner', '-nostdin', ...args];
    const [file, argv] =
      limits?.prlimitPath != null
        ? [limits.prlimitPath, [`--as=${limits.memoryBytes}`, `--cpu=${limits.cpuSeconds}`, '--', binary, ...command]]
        : [binary, command];
    const child = spawn(file, argv, {
      shell: false,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
    if (options.background && child.pid !== undefined) {
      try {
        os.setPriority(child.pid, Math.min(19, os.getPriority() + BACKGROUND_NICENESS));
      } catch {
        // the process already ended; nothing to lower
      }
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failure: Error | null = null;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () => stop(new FfmpegTimeoutError(`ffmpeg ran longer than ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    // Without prlimit the kernel enforces nothing: poll /proc (a 100 ms overshoot is harmless).
    const watch =
      limits && limits.prlimitPath === null && child.pid !== undefined && fs.existsSync('/proc/self/stat')
        ? setInterval(() => {
            const usage = procUsage(child.pid as number);
            if (usage && (usage.cpuSeconds > limits.cpuSeconds || usage.residentBytes > limits.memoryBytes)) {
              stop(new FfmpegResourceLimitError('ffmpeg exceeded its memory or CPU cap'));
            }
          }, 100)
        : undefined;
    child.stdout?.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > options.maxStdoutBytes) stop(new FfmpegOutputTooLargeError('ffmpeg output exceeded its cap'));
      else out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (err.length < (options.maxStderrChars ?? 16_384)) err += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      clearInterval(watch);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(watch);
      if (failure) reject(failure);
      // RLIMIT_CPU sends SIGXCPU (then SIGKILL); a failed allocation under the address-space cap
      // ends in an error message or a crash.
      else if (limits && (signal === 'SIGXCPU' || (signal !== null && limits.prlimitPath !== null) || OUT_OF_MEMORY.test(err))) {
        reject(new FfmpegResourceLimitError(`ffmpeg stopped by its caps (${signal ?? `exit ${code}`})`));
      } else resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    if (options.stdin && child.stdin) {
      // ffmpeg may exit before reading everything (bad input); that is reported through the exit code.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
  });
}
