/**
 * Audio fixtures made at test time: speech from the eSpeak NG WebAssembly engine (speech.ts),
 * formats, silence and clipping with ffmpeg (binaries.ts finds one), cached per process in a
 * temp dir. Also decodes audio for assertions.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ffmpegPath } from './binaries.js';
import { SPEECH_SAMPLE_RATE, speechPcm, wavBytes } from './speech.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-audio-fixtures-'));
const cache = new Map<string, string>();

const ffmpeg = (...args: string[]) => execFileSync(ffmpegPath(), ['-hide_banner', '-v', 'error', '-y', ...args]);

/** A WAV of eSpeak NG saying `text` (22.05 kHz mono). */
export function speechWav(text = 'Siobhan Ni Bhriain', name = 'speech'): string {
  const key = `wav:${name}:${text}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const file = path.join(dir, `${name}.wav`);
  fs.writeFileSync(file, wavBytes(speechPcm(text, { wordsPerMinute: 150 })));
  cache.set(key, file);
  return file;
}

const CODECS: Record<string, string[]> = {
  webm: ['-c:a', 'libopus', '-f', 'webm'],
  ogg: ['-c:a', 'libopus', '-f', 'ogg'],
  mp3: ['-c:a', 'libmp3lame', '-f', 'mp3'],
  m4a: ['-c:a', 'aac', '-f', 'ipod'],
  wav: ['-c:a', 'pcm_s16le', '-f', 'wav'],
  flac: ['-c:a', 'flac', '-f', 'flac'],
};

/**
 * Converts a file to one of the accepted formats; `filter` is an optional ffmpeg -af chain,
 * `encode` extra output options (channels, rate, bit rate).
 */
export function convert(
  input: string,
  format: keyof typeof CODECS,
  options: { filter?: string; name?: string; encode?: string[] } = {},
): string {
  const name = options.name ?? `${path.basename(input, path.extname(input))}-${format}${options.filter ? `-${cache.size}` : ''}`;
  const file = path.join(dir, `${name}.${format}`);
  if (!fs.existsSync(file)) {
    ffmpeg(
      '-i',
      input,
      ...(options.filter ? ['-af', options.filter] : []),
      ...(options.encode ?? []),
      ...(CODECS[format] as string[]),
      file,
    );
  }
  return file;
}

/** ffmpeg lavfi source rendered to a file, e.g. `anullsrc=r=44100:cl=mono` for silence. */
export function generated(name: string, source: string, seconds: number, format: keyof typeof CODECS = 'wav'): string {
  const file = path.join(dir, `${name}.${format}`);
  if (!fs.existsSync(file))
    ffmpeg('-f', 'lavfi', '-i', source, '-t', String(seconds), '-ac', '1', ...(CODECS[format] as string[]), file);
  return file;
}

/** Speech with silence before and after it (seconds), as WAV. */
export function paddedSpeech(before: number, after: number, text?: string): string {
  const file = path.join(dir, `padded-${before}-${after}.wav`);
  if (!fs.existsSync(file)) {
    ffmpeg(
      '-i',
      speechWav(text),
      '-af',
      // pad_len in samples: the ffmpeg of @ffmpeg-installer/ffmpeg predates apad's pad_dur.
      `adelay=${Math.round(before * 1000)},apad=pad_len=${Math.round(after * SPEECH_SAMPLE_RATE)}`,
      '-ar',
      '22050',
      '-ac',
      '1',
      file,
    );
  }
  return file;
}

export interface DecodedAudio {
  /** ffmpeg's name of the input codec, e.g. `mp3`. */
  codec: string;
  durationMs: number;
  meanDb: number;
  maxDb: number;
  sampleRate: number;
  channels: number;
}

/** Decodes audio with ffmpeg: real duration (decoded sample count at the native rate), mean and max volume. */
export function decodeAudio(data: Buffer | string): DecodedAudio {
  const input = typeof data === 'string' ? data : path.join(dir, `decode-${process.hrtime.bigint()}.bin`);
  if (typeof data !== 'string') fs.writeFileSync(input, data);
  const run = spawnSync(ffmpegPath(), ['-hide_banner', '-i', input, '-af', 'volumedetect', '-f', 's16le', '-ac', '1', 'pipe:1'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) throw new Error(`ffmpeg could not decode: ${run.stderr.toString()}`);
  const stderr = run.stderr.toString();
  const rate = Number(/Audio: [^,]+, (\d+) Hz/.exec(stderr)?.[1] ?? 0);
  return {
    codec: /Audio: (\w+)/.exec(stderr)?.[1] ?? '',
    durationMs: rate ? (run.stdout.length / 2 / rate) * 1000 : 0,
    meanDb: Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)?.[1] ?? -200),
    maxDb: Number(/max_volume: (-?[\d.]+) dB/.exec(stderr)?.[1] ?? -200),
    sampleRate: rate,
    channels: /Audio: [^,]+, \d+ Hz, mono/.test(stderr) ? 1 : 2,
  };
}

/**
 * A WAV file with its `fmt ` header rewritten (the samples untouched): e.g. `{ sampleRate: 1 }`
 * for the file that makes a resampler build an enormous filter. Expects the canonical 44-byte
 * header ffmpeg writes.
 */
export function patchedWav(input: string, changes: { sampleRate?: number; channels?: number }): Buffer {
  const data = Buffer.from(fs.readFileSync(input));
  if (data.toString('latin1', 12, 16) !== 'fmt ') throw new Error(`${input}: fmt chunk not at offset 12`);
  if (changes.channels !== undefined) data.writeUInt16LE(changes.channels, 22);
  if (changes.sampleRate !== undefined) {
    data.writeUInt32LE(changes.sampleRate, 24);
    data.writeUInt32LE(changes.sampleRate * data.readUInt16LE(32), 28); // byte rate = rate × block align
  }
  return data;
}

/** The same audio stream in a Matroska container (stream copy: rate and channels as declared). */
export function matroskaOf(wav: Buffer, name: string): Buffer {
  const input = path.join(dir, `${name}.wav`);
  const output = path.join(dir, `${name}.mka`);
  fs.writeFileSync(input, wav);
  ffmpeg('-f', 'wav', '-i', input, '-c:a', 'copy', '-f', 'matroska', output);
  return fs.readFileSync(output);
}
