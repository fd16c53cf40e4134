/**
 * The audio pipeline: an upload in any accepted format becomes a clean MP3 (mono, 44.1 kHz),
 * or a refusal with a reason. Steps: sniff the bytes; decode with ffmpeg (from a private temp
 * file, because MP4 needs seeking) to float PCM, after refusing what the header declares when it
 * is absurd (sample rate, channels, length: see declared-format.ts); find the speech, refuse silence, clipping and
 * bad lengths; trim and normalise in JS; encode with ffmpeg. The duration is the decoded
 * sample count of the trimmed clip.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { analyseSpeech, applyGain, CLIPPED_SHARE } from './analyse.js';
import { type DeclaredFormat, formatProblem, parseStreamInfo, wavFormat } from './declared-format.js';
import {
  FfmpegOutputTooLargeError,
  FfmpegResourceLimitError,
  FfmpegTimeoutError,
  locateFfmpeg,
  locatePrlimit,
  type ResourceLimits,
  runFfmpeg,
} from './ffmpeg.js';
import { type AudioFormat, DEMUXER, DEMUXER_ALLOW_LIST, isTruncatedWav, sniffAudioFormat } from './sniff.js';
import { FairScheduler, QueueFullError, SenderQueueFullError } from '../lib/fair-scheduler.js';
import { makeWorkFolder } from '../lib/process-temp.js';

export const SAMPLE_RATE = 44_100;
export const MIN_SPEECH_MS = 300;
export const MAX_SPEECH_MS = 15_000;
/** Uploads longer than this (before trimming) are refused without further work. */
export const MAX_INPUT_SECONDS = 120;
export const MP3_BITRATE = '64k';

export type AudioRejection =
  | 'audio_empty'
  | 'audio_unsupported_format'
  | 'audio_unsupported_sample_rate'
  | 'audio_too_many_channels'
  | 'audio_corrupt'
  | 'audio_too_long'
  | 'audio_too_short'
  | 'audio_silent'
  | 'audio_clipped'
  | 'audio_processing_timeout'
  | 'audio_too_complex';

/** The upload cannot become a recording; `reason` is the public error code. */
export class AudioRejectedError extends Error {
  constructor(
    readonly reason: AudioRejection,
    message: string,
  ) {
    super(message);
    this.name = 'AudioRejectedError';
  }
}

export interface ProcessedAudio {
  mp3: Buffer;
  durationMs: number;
  inputFormat: AudioFormat;
}

export interface ProcessOptions {
  /**
   * Who sent the upload: the ffmpeg slots are shared fairly between senders (see
   * src/lib/fair-scheduler.ts). Uploads without one share a single queue.
   */
  sender?: string;
  /** Aborted when the client has gone away: a waiting upload then leaves the queue. */
  signal?: AbortSignal;
}

export interface AudioProcessor {
  process(upload: Buffer, options?: ProcessOptions): Promise<ProcessedAudio>;
  /** Uploads waiting for a slot (for the metrics); absent on processors without a queue. */
  queued?(): number;
}

/** The processor behind the fair queue: each upload says how its ffmpeg runs are prioritised. */
interface PrioritisedProcessor {
  process(upload: Buffer, priority?: RunPriority): Promise<ProcessedAudio>;
}

/** How one processing run asks for its CPU priority, decided afresh at each ffmpeg start. */
interface RunPriority {
  /** True: run ffmpeg at background priority (the sender has more uploads waiting). */
  background?: () => boolean;
}

/**
 * Too many uploads are waiting for an ffmpeg slot; the client should retry later. `sender`: this
 * sender already has its most uploads in processing (the others are served as usual); `server`:
 * the whole waiting line is full.
 */
export class AudioBusyError extends Error {
  constructor(
    readonly scope: 'sender' | 'server',
    readonly retryAfterSeconds: number,
    message = 'Too many recordings are being processed right now; try again in a few seconds.',
  ) {
    super(message);
    this.name = 'AudioBusyError';
  }
}

/** Seconds a refused upload is told to wait: a few typical runs' worth, not the worst case. */
export const BUSY_RETRY_AFTER_SECONDS = 5;

// Messages ffmpeg prints (at warning level) when a file is cut off or damaged, even when it
// still decodes part of it and exits 0. Older builds (such as the one @ffmpeg-installer/ffmpeg
// ships) report a WebM cut off mid-element as "Read error" rather than "File ended prematurely".
const DAMAGE =
  /File ended prematurely|Read error|filesize and duration do not match|Packet corrupt|corrupt input packet|moov atom not found|Invalid data found|CRC mismatch|Error while decoding|Truncating packet|EBML header parsing failed|Header missing|invalid frame size/i;

export function createAudioProcessor(options: { ffmpegPath: string; timeoutMs: number; limits?: ResourceLimits }): {
  process(upload: Buffer, priority?: RunPriority): Promise<ProcessedAudio>;
} {
  const { ffmpegPath } = options;
  // Every run gets the same caps; `limits` is left out entirely when none are given.
  const run = (
    args: string[],
    runOptions: { maxStdoutBytes: number; maxStderrChars?: number; stdin?: Buffer },
    priority: RunPriority,
  ) =>
    runFfmpeg(ffmpegPath, args, {
      ...runOptions,
      background: priority.background?.() ?? false,
      timeoutMs: options.timeoutMs,
      ...(options.limits ? { limits: options.limits } : {}),
    });
  const tooComplex = () =>
    reject('audio_too_complex', 'Decoding the audio needed more memory or processing time than allowed; send a plain recording.');
  const reject = (reason: AudioRejection, message: string) => new AudioRejectedError(reason, message);

  /** Runs `work` with the upload in a private temp file (MP4 needs seeking, so no pipe). */
  async function withInputFile<T>(upload: Buffer, work: (input: string) => Promise<T>): Promise<T> {
    const dir = await makeWorkFolder('audio');
    const input = path.join(dir, `input-${randomUUID()}`);
    try {
      await fs.writeFile(input, upload, { mode: 0o600 });
      return await work(input);
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  const inputArgs = (format: AudioFormat, input: string) => [
    '-protocol_whitelist',
    'file,pipe',
    '-format_whitelist',
    DEMUXER_ALLOW_LIST,
    '-f',
    DEMUXER[format],
    '-i',
    input,
  ];

  /**
   * ffmpeg's reading of the container: it opens the input, prints the stream dump and stops
   * (no output is given), decoding at most the few packets it needs to know the stream's shape.
   */
  async function probe(input: string, format: AudioFormat, priority: RunPriority): Promise<DeclaredFormat | null> {
    const probed = await run(
      ['-v', 'info', ...inputArgs(format, input)],
      // Tags are printed before the stream line; room for long ones, so it is not cut off.
      { maxStdoutBytes: 0, maxStderrChars: 256 * 1024 },
      priority,
    ).catch(rethrowAsRejection);
    return parseStreamInfo(probed.stderr);
  }

  /** Refuses absurd declared formats before anything is decoded or resampled. */
  async function checkDeclaredFormat(upload: Buffer, input: string, format: AudioFormat, priority: RunPriority): Promise<void> {
    // A WAV header states its length exactly; other containers' durations may be estimates.
    const declared = format === 'wav' ? wavFormat(upload) : await probe(input, format, priority);
    if (declared === null) throw reject('audio_corrupt', `The ${format} file holds no audio stream that can be read.`);
    const problem = 'reason' in declared ? declared : formatProblem(declared, MAX_INPUT_SECONDS * (format === 'wav' ? 1 : 2) + 1);
    if (problem) throw reject(problem.reason, problem.message);
  }

  function rethrowAsRejection(error: unknown): never {
    if (error instanceof FfmpegTimeoutError) {
      throw reject('audio_processing_timeout', 'Processing the audio took too long; try a shorter recording.');
    }
    if (error instanceof FfmpegOutputTooLargeError) {
      throw reject('audio_too_long', `The recording is longer than ${MAX_INPUT_SECONDS} s.`);
    }
    if (error instanceof FfmpegResourceLimitError) throw tooComplex();
    throw error;
  }

  async function decode(input: string, format: AudioFormat, priority: RunPriority): Promise<Float32Array> {
    const decoded = await run(
      [
        '-v',
        'warning',
        ...inputArgs(format, input),
        '-map',
        '0:a:0',
        '-t',
        String(MAX_INPUT_SECONDS + 1),
        '-ac',
        '1',
        '-ar',
        String(SAMPLE_RATE),
        '-f',
        'f32le',
        'pipe:1',
      ],
      { maxStdoutBytes: (MAX_INPUT_SECONDS + 2) * SAMPLE_RATE * 4 },
      priority,
    ).catch(rethrowAsRejection);
    if (decoded.code !== 0 || DAMAGE.test(decoded.stderr) || decoded.stdout.length < 4) {
      throw reject('audio_corrupt', `The ${format} file is corrupt or truncated and cannot be decoded.`);
    }
    const bytes = decoded.stdout.subarray(0, decoded.stdout.length - (decoded.stdout.length % 4));
    // Copy into an aligned buffer: Buffer slices may start at any byte offset.
    return new Float32Array(new Uint8Array(bytes).buffer);
  }

  async function encode(samples: Float32Array, priority: RunPriority): Promise<Buffer> {
    const encoded = await run(
      [
        '-v',
        'error',
        '-protocol_whitelist',
        'pipe',
        '-f',
        'f32le',
        '-ar',
        String(SAMPLE_RATE),
        '-ac',
        '1',
        '-i',
        'pipe:0',
        '-c:a',
        'libmp3lame',
        '-b:a',
        MP3_BITRATE,
        '-ar',
        String(SAMPLE_RATE),
        '-ac',
        '1',
        '-f',
        'mp3',
        'pipe:1',
      ],
      { stdin: Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength), maxStdoutBytes: 4 * 1024 * 1024 },
      priority,
    ).catch((error) => {
      if (error instanceof FfmpegTimeoutError) throw reject('audio_processing_timeout', 'Encoding the audio took too long.');
      if (error instanceof FfmpegResourceLimitError) throw tooComplex();
      throw error;
    });
    if (encoded.code !== 0 || encoded.stdout.length === 0)
      throw new Error(`mp3 encoding failed: ${encoded.stderr.slice(0, 500)}`);
    return encoded.stdout;
  }

  return {
    async process(upload, priority = {}) {
      if (upload.length === 0) throw reject('audio_empty', 'The request body is empty; send the audio file as the body.');
      const format = sniffAudioFormat(upload);
      if (!format) {
        throw reject('audio_unsupported_format', 'Unrecognised audio format; send WebM, Ogg, WAV, MP3 or M4A (MP4 audio).');
      }
      if (format === 'wav' && isTruncatedWav(upload)) {
        throw reject('audio_corrupt', 'The wav file is truncated: it holds less audio than its header declares.');
      }
      const samples = await withInputFile(upload, async (input) => {
        await checkDeclaredFormat(upload, input, format, priority);
        return decode(input, format, priority);
      });
      if (samples.length > MAX_INPUT_SECONDS * SAMPLE_RATE) {
        throw reject('audio_too_long', `The recording is longer than ${MAX_INPUT_SECONDS} s.`);
      }
      const analysis = analyseSpeech(samples, SAMPLE_RATE);
      if (!analysis.speech || !analysis.clip) {
        throw reject('audio_silent', 'The recording is silent; check the microphone and speak your name clearly.');
      }
      const speechMs = ((analysis.speech.end - analysis.speech.start) / SAMPLE_RATE) * 1000;
      if (speechMs < MIN_SPEECH_MS) {
        throw reject('audio_too_short', `The spoken part is shorter than ${MIN_SPEECH_MS / 1000} s; say your full name.`);
      }
      if (speechMs > MAX_SPEECH_MS) {
        throw reject('audio_too_long', `The spoken part is longer than ${MAX_SPEECH_MS / 1000} s; say just your name.`);
      }
      if (analysis.clippedShare >= CLIPPED_SHARE) {
        throw reject('audio_clipped', 'The recording is distorted (clipped); move away from the microphone or speak softer.');
      }
      const clip = applyGain(samples, analysis.clip, analysis.gain);
      const mp3 = await encode(clip, priority);
      return { mp3, durationMs: Math.round((clip.length / SAMPLE_RATE) * 1000), inputFormat: format };
    },
  };
}

/** The processor for this config; ffmpeg is located on first use, so boot never fails on it. */
export function createAudioProcessorFromConfig(config: {
  ffmpegPath: string | null;
  audioTimeoutMs: number;
  audioConcurrency: number;
  audioQueueMax: number;
  audioQueuePerAccount: number;
  audioMaxMemoryMb: number;
}): AudioProcessor {
  let processor: PrioritisedProcessor | undefined;
  // ffmpeg is CPU-bound: more runs than cores only make every upload slower and use more memory.
  // The slots are shared by every customer, so they are handed out fairly between senders. A
  // sender's burst waits its turn (an integration uploading in parallel is normal work); only
  // beyond its own depth is it told to slow down, and only a full line refuses everybody.
  const slots = new FairScheduler({
    concurrency: config.audioConcurrency,
    maxQueued: config.audioQueueMax,
    maxPendingPerSender: config.audioQueuePerAccount,
  });
  return {
    queued: () => slots.queued,
    async process(upload, options = {}) {
      processor ??= createAudioProcessor({
        ffmpegPath: locateFfmpeg(config.ffmpegPath),
        timeoutMs: config.audioTimeoutMs,
        // CPU time may not exceed the wall-clock limit: one decoding thread at full speed.
        limits: {
          memoryBytes: config.audioMaxMemoryMb * 1024 * 1024,
          cpuSeconds: Math.ceil(config.audioTimeoutMs / 1000),
          prlimitPath: locatePrlimit(),
        },
      });
      const current = processor;
      try {
        // A sender with more uploads waiting runs at background CPU priority: its flood then
        // yields the CPU to other senders' uploads running beside it, and costs nothing when idle.
        return await slots.run(
          options.sender ?? '',
          (slot) => current.process(upload, { background: () => slot.senderHasBacklog() }),
          options.signal,
        );
      } catch (error) {
        if (error instanceof SenderQueueFullError) {
          throw new AudioBusyError(
            'sender',
            BUSY_RETRY_AFTER_SECONDS,
            `This account already has ${error.maxPendingPerSender} recordings being processed; try again in a few seconds.`,
          );
        }
        if (error instanceof QueueFullError) throw new AudioBusyError('server', BUSY_RETRY_AFTER_SECONDS);
        throw error;
      }
    },
  };
}
