/**
 * The programs the tests drive (Chromium, ffmpeg), each resolved once per process in one order:
 *   1. an explicit setting: CHROMIUM_PATH, FFMPEG_PATH;
 *   2. a system binary: on PATH, or Debian's /usr/bin/chromium (they start faster, and they are
 *      what a developer re-running a failure by hand has);
 *   3. the build shipped in an npm package: @sparticuz/chromium, @ffmpeg-installer/ffmpeg, so that
 *      `npm ci && npm test` passes on a machine where nothing else was installed.
 * With VOICENAME_HIDE_SYSTEM_BINARIES=1 step 2 is skipped, fixed paths included: CI runs one pass
 * that way (with a PATH of only node and npm, which the service's own ffmpeg lookup obeys) so a
 * broken fallback fails CI instead of being masked by the system packages of the CI machine.
 * Speech needs no program: test audio comes from the eSpeak NG WebAssembly engine (speech.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { locateFfmpeg } from '../../src/audio/ffmpeg.js';
import { findOnPath, isExecutable } from '../../src/lib/executables.js';

export const systemBinariesHidden = (): boolean => process.env.VOICENAME_HIDE_SYSTEM_BINARIES === '1';

const require = createRequire(import.meta.url);

const onPath = (name: string): string | null => findOnPath(name);

let ffmpeg: string | null = null;

/** The ffmpeg the test helpers run: the same order as the service (src/audio/ffmpeg.ts). */
export function ffmpegPath(): string {
  // An empty PATH makes locateFfmpeg skip step 2 and fall through to the npm package.
  ffmpeg ??= locateFfmpeg(process.env.FFMPEG_PATH || null, systemBinariesHidden() ? '' : (process.env.PATH ?? ''));
  return ffmpeg;
}

export interface ChromiumBinary {
  executablePath: string;
  /** Where it came from; the npm build needs its own launch flags (see browser.ts). */
  source: 'CHROMIUM_PATH' | 'system' | '@sparticuz/chromium';
}

const SYSTEM_CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

let chromiumBinary: ChromiumBinary | null = null;

export function chromium(): ChromiumBinary {
  chromiumBinary ??= resolveChromium();
  return chromiumBinary;
}

function resolveChromium(): ChromiumBinary {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!isExecutable(configured)) throw new Error(`CHROMIUM_PATH=${configured} is not an executable file`);
    return { executablePath: configured, source: 'CHROMIUM_PATH' };
  }
  if (!systemBinariesHidden()) {
    const system = onPath('chromium') ?? onPath('chromium-browser') ?? SYSTEM_CHROMIUM.find(isExecutable);
    if (system) return { executablePath: system, source: 'system' };
  }
  return { executablePath: unpackSparticuzChromium(), source: '@sparticuz/chromium' };
}

/**
 * The Chromium of @sparticuz/chromium, unpacked once per version and user into the temp dir.
 * The package unpacks into os.tmpdir() itself and treats an existing file as complete, so it runs
 * in a child process whose TMPDIR is a fresh directory, which is then renamed into place: test
 * processes unpacking at the same time can never launch a half-written binary.
 */
function unpackSparticuzChromium(): string {
  let entry: string;
  try {
    entry = require.resolve('@sparticuz/chromium');
  } catch {
    throw new Error('No Chromium: install Debian chromium, set CHROMIUM_PATH, or run npm ci (@sparticuz/chromium)');
  }
  const packageDir = entry.slice(0, entry.lastIndexOf(`${path.sep}build${path.sep}`));
  const { version } = JSON.parse(fs.readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const target = path.join(os.tmpdir(), `voicename-chromium-${version}-${os.userInfo().uid}`);
  const binary = path.join(target, 'chromium');
  if (isExecutable(binary)) return binary;
  const partial = fs.mkdtempSync(`${target}.partial-`);
  try {
    const unpacked = execFileSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(entry)}).executablePath().then((file) => process.stdout.write(file))`],
      { env: { ...process.env, TMPDIR: partial }, encoding: 'utf8', timeout: 120_000 },
    );
    if (path.dirname(unpacked) !== partial) throw new Error(`@sparticuz/chromium unpacked to ${unpacked}, not ${partial}`);
    fs.renameSync(partial, target);
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    // Another process renamed its copy into place first: use that one.
    if (isExecutable(binary)) return binary;
    throw err;
  }
  return binary;
}
