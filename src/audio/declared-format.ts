/**
 * What an upload declares about itself, checked before anything is decoded. A header is a few
 * bytes the sender writes freely, and ffmpeg trusts it: a WAV that claims 1 Hz makes the
 * resampler to 44.1 kHz build an enormous filter (tens of seconds and about a gigabyte per
 * file, from a 2 KB upload). Speech never needs such formats, so they are refused outright.
 *
 * WAV headers are parsed here (the `fmt ` chunk is at a fixed place and cheap to read); the other
 * containers are read by ffmpeg in a probe pass that opens the input and decodes nothing, and
 * `parseStreamInfo` reads the stream line it prints.
 */

export const MIN_SAMPLE_RATE = 8_000;
export const MAX_SAMPLE_RATE = 192_000;
export const MAX_CHANNELS = 8;

export interface DeclaredFormat {
  sampleRate: number;
  /** null when the layout name is one we do not know (the resource caps still bound the run). */
  channels: number | null;
  /** null when the container does not say (streamed files, or a duration ffmpeg reports as N/A). */
  durationSeconds: number | null;
}

export type FormatProblem =
  | { reason: 'audio_unsupported_sample_rate'; message: string }
  | { reason: 'audio_too_many_channels'; message: string }
  | { reason: 'audio_too_long'; message: string }
  | { reason: 'audio_corrupt'; message: string };

/**
 * The first problem of a declared format, or null. `maxDurationSeconds` applies to durations
 * the container states; callers pass a margin where the figure is an estimate (MP3 without a
 * Xing header, for one, is timed from its first frame's bit rate).
 */
export function formatProblem(format: DeclaredFormat, maxDurationSeconds: number): FormatProblem | null {
  const { sampleRate, channels, durationSeconds } = format;
  if (!(sampleRate >= MIN_SAMPLE_RATE && sampleRate <= MAX_SAMPLE_RATE)) {
    return {
      reason: 'audio_unsupported_sample_rate',
      message: `The audio declares a sample rate of ${sampleRate} Hz; send ${MIN_SAMPLE_RATE.toLocaleString('en')} to ${MAX_SAMPLE_RATE.toLocaleString('en')} Hz.`,
    };
  }
  if (channels !== null && (channels < 1 || channels > MAX_CHANNELS)) {
    return {
      reason: 'audio_too_many_channels',
      message: `The audio declares ${channels} channels; send at most ${MAX_CHANNELS} (mono is best).`,
    };
  }
  if (durationSeconds !== null && durationSeconds > maxDurationSeconds) {
    return {
      reason: 'audio_too_long',
      message: `The recording declares ${Math.round(durationSeconds)} s of audio; that is too long.`,
    };
  }
  return null;
}

const ascii = (data: Buffer, start: number, end: number) => data.subarray(start, end).toString('latin1');

// PCM, IEEE float and WAVE_FORMAT_EXTENSIBLE: the tags whose bits per sample must be a sample size.
const PCM_TAGS = new Set([0x0001, 0x0003, 0xfffe]);
const PCM_BITS = new Set([8, 16, 24, 32, 64]);

/**
 * The `fmt ` chunk of a RIFF/WAVE file (and the declared length of its `data` chunk), or an
 * `audio_corrupt` problem when the header is missing or inconsistent. Streamed WAVs that declare a
 * placeholder data size (0xFFFFFFFF or close to 2^31) have no duration.
 */
export function wavFormat(data: Buffer): DeclaredFormat | FormatProblem {
  const corrupt = (why: string): FormatProblem => ({ reason: 'audio_corrupt', message: `The wav header is invalid: ${why}.` });
  let offset = 12;
  let fmt: { tag: number; channels: number; sampleRate: number; byteRate: number; bits: number } | null = null;
  while (offset + 8 <= data.length) {
    const id = ascii(data, offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      if (size < 16 || offset + 8 + 16 > data.length) return corrupt('the fmt chunk is too short');
      const at = offset + 8;
      fmt = {
        tag: data.readUInt16LE(at),
        channels: data.readUInt16LE(at + 2),
        sampleRate: data.readUInt32LE(at + 4),
        byteRate: data.readUInt32LE(at + 8),
        bits: data.readUInt16LE(at + 14),
      };
    } else if (id === 'data') {
      if (!fmt) return corrupt('the data chunk comes before the fmt chunk');
      if (PCM_TAGS.has(fmt.tag) && !PCM_BITS.has(fmt.bits)) return corrupt(`${fmt.bits} bits per sample`);
      const streamed = size >= 0x7fff0000;
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        durationSeconds: streamed || fmt.byteRate === 0 ? null : size / fmt.byteRate,
      };
    }
    offset += 8 + size + (size % 2);
  }
  return corrupt(fmt ? 'there is no data chunk' : 'there is no fmt chunk');
}

// Channel layouts ffmpeg names instead of counting ("5.1(side)", "7.1(wide)", "22.2" …).
const NAMED_LAYOUTS: Record<string, number> = {
  mono: 1,
  stereo: 2,
  downmix: 2,
  quad: 4,
  hexagonal: 6,
  octagonal: 8,
  hexadecagonal: 16,
  cube: 8,
};

function layoutChannels(layout: string): number | null {
  const name = layout.replace(/\(.*\)$/, '').trim();
  const counted = /^(\d+) channels$/.exec(name);
  if (counted) return Number(counted[1]);
  // "5.1" is five full-range channels and one LFE; "7.1.4" adds four height channels.
  if (/^\d+(\.\d+)+$/.test(name)) return name.split('.').reduce((sum, part) => sum + Number(part), 0);
  return NAMED_LAYOUTS[name] ?? null;
}

/**
 * The first audio stream of ffmpeg's input dump, e.g.
 * `Duration: 00:16:00.00, …` and `Stream #0:0: Audio: pcm_s16le, 1 Hz, mono, s16, 0 kb/s`,
 * or null when there is none.
 */
export function parseStreamInfo(stderr: string): DeclaredFormat | null {
  const stream = /Stream #0:\d+[^:\n]*: Audio: ([^\n]*)/.exec(stderr)?.[1];
  if (stream === undefined) return null;
  // ffmpeg leaves the rate out when it is 0, and the layout then follows the codec.
  const rate = /, (\d+) Hz, ([^,]+)/.exec(stream);
  const duration = /Duration: (\d+):(\d{2}):(\d{2}(?:\.\d+)?)/.exec(stderr);
  return {
    sampleRate: rate ? Number(rate[1]) : 0,
    channels: rate ? layoutChannels(rate[2] as string) : null,
    durationSeconds: duration ? Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]) : null,
  };
}
