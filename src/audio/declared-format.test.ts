import { describe, expect, it } from 'vitest';
import { formatProblem, parseStreamInfo, wavFormat } from './declared-format.js';

function wav(options: { rate?: number; channels?: number; bits?: number; tag?: number; dataBytes?: number; declared?: number }) {
  const { rate = 16_000, channels = 1, bits = 16, tag = 1, dataBytes = 320 } = options;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(tag, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE((rate * channels * bits) / 8, 28);
  header.writeUInt16LE((channels * bits) / 8, 32);
  header.writeUInt16LE(bits, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(options.declared ?? dataBytes, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}

describe('wavFormat', () => {
  it('reads rate, channels and the exact duration', () => {
    expect(wavFormat(wav({ rate: 16_000, channels: 2, dataBytes: 64_000 }))).toEqual({
      sampleRate: 16_000,
      channels: 2,
      durationSeconds: 1,
    });
  });

  it('has no duration for a streamed WAV with a placeholder data size', () => {
    expect(wavFormat(wav({ declared: 0xffffffff }))).toMatchObject({ durationSeconds: null });
  });

  it('calls a header without fmt, or with impossible PCM sample sizes, corrupt', () => {
    const noFmt = wav({});
    noFmt.write('junk', 12, 'latin1');
    expect(wavFormat(noFmt)).toMatchObject({ reason: 'audio_corrupt' });
    expect(wavFormat(wav({ bits: 12 }))).toMatchObject({ reason: 'audio_corrupt' });
    // Compressed WAV codecs (here IMA ADPCM, 4 bits) are left to the decoder.
    expect(wavFormat(wav({ tag: 0x11, bits: 4 }))).not.toHaveProperty('reason');
  });
});

describe('formatProblem', () => {
  const ok = { sampleRate: 44_100, channels: 1, durationSeconds: 3 };

  it('accepts ordinary speech formats, at both ends of the range', () => {
    expect(formatProblem(ok, 121)).toBeNull();
    expect(formatProblem({ ...ok, sampleRate: 8_000, channels: 8 }, 121)).toBeNull();
    expect(formatProblem({ ...ok, sampleRate: 192_000, channels: null, durationSeconds: null }, 121)).toBeNull();
  });

  it.each([
    [{ sampleRate: 1 }, 'audio_unsupported_sample_rate'],
    [{ sampleRate: 0 }, 'audio_unsupported_sample_rate'],
    [{ sampleRate: 7_999 }, 'audio_unsupported_sample_rate'],
    [{ sampleRate: 192_001 }, 'audio_unsupported_sample_rate'],
    [{ channels: 9 }, 'audio_too_many_channels'],
    [{ channels: 0 }, 'audio_too_many_channels'],
    [{ durationSeconds: 122 }, 'audio_too_long'],
  ])('refuses %o with %s', (change, reason) => {
    expect(formatProblem({ ...ok, ...change }, 121)?.reason).toBe(reason);
  });
});

describe('parseStreamInfo', () => {
  const dump = (stream: string, duration = '00:16:00.00') =>
    `Input #0, wav, from 'x':\n  Duration: ${duration}, bitrate: 0 kb/s\n  Stream #0:0: Audio: ${stream}\nAt least one output file must be specified\n`;

  it.each([
    ['pcm_s16le ([1][0][0][0] / 0x0001), 1 Hz, mono, s16, 0 kb/s', 1, 1],
    ['opus, 48000 Hz, stereo, fltp', 48_000, 2],
    ['aac (LC) (mp4a / 0x6134706D), 44100 Hz, 5.1(side), fltp, 320 kb/s (default)', 44_100, 6],
    ['pcm_s16le, 16000 Hz, 12 channels, s16, 3072 kb/s', 16_000, 12],
    ['vorbis, 22050 Hz, 7.1(wide), fltp', 22_050, 8],
    ['pcm_s16le, 8000 Hz, 22.2, s16', 8_000, 24],
  ])('reads %s', (stream, sampleRate, channels) => {
    expect(parseStreamInfo(dump(stream))).toEqual({ sampleRate, channels, durationSeconds: 960 });
  });

  it('reads a missing rate as 0 and an unknown duration as null', () => {
    expect(parseStreamInfo(dump('pcm_s16le, mono, s16', 'N/A'))).toEqual({
      sampleRate: 0,
      channels: null,
      durationSeconds: null,
    });
  });

  it('is null without an audio stream', () => {
    expect(parseStreamInfo('Input #0, matroska,webm, from x:\n  Stream #0:0: Video: vp9\n')).toBeNull();
  });
});
