/**
 * The only code that starts ffmpeg. It is found in this order: `FFMPEG_PATH`, `ffmpeg` on
 * PATH, the static binary of the `@ffmpeg-installer/ffmpeg` npm package. Every run is spawned
 * without a shell, with a hard time limit, a cap on output size and network protocols off
 * (`-protocol_whitelist file,pipe` is added by the callers before each input).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export class FfmpegTimeoutError extends Error {}
export class FfmpegOutputTooLargeError extends Error {}

/** Absolute path of an ffmpeg binary, or throws a message that says how to provide one. */
export function locateFfmpeg(configured: string | null, envPath: string = process.env.PATH ?? ''): string {
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`FFMPEG_PATH=${configured} is not an executable file`);
    return configured;
  }
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'ffmpeg');
    if (isExecutable(candidate)) return candidate;
  }
  try {
    const shipped = (createRequire(import.meta.url)('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    if (isExecutable(shipped)) return shipped;
  } catch {
    // not installed for this platform; fall through to the error below
  }
  throw new Error('ffmpeg not found: install it (apt-get install ffmpeg) or set FFMPEG_PATH');
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
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
}

/** Runs ffmpeg with `args` (no shell); resolves with its output whatever the exit code. */
export function runFfmpeg(binary: string, args: string[], options: RunOptions): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-hide_banner', '-nostdin', ...args], {
      shell: false,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '' },
    });
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
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    if (options.stdin && child.stdin) {
      // ffmpeg may exit before reading everything (bad input); that is reported through the exit code.
      child.stdin.on('error', () => {});
      child.stdin.end(options.stdin);
    }
  });
}
