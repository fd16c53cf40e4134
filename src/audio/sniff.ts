/**
 * Recognises an upload by its bytes (the Content-Type header is not trusted). Each accepted
 * format maps to exactly one ffmpeg demuxer, passed with `-f`, and the same names form the
 * `-format_whitelist`, so ffmpeg never probes its way into another demuxer.
 */

export type AudioFormat = 'webm' | 'ogg' | 'wav' | 'mp3' | 'm4a';

export const DEMUXER: Record<AudioFormat, string> = {
  webm: 'matroska',
  ogg: 'ogg',
  wav: 'wav',
  mp3: 'mp3',
  m4a: 'mov',
};

export const DEMUXER_ALLOW_LIST = Object.values(DEMUXER).join(',');

const ascii = (data: Buffer, start: number, end: number) => data.subarray(start, end).toString('latin1');

export function sniffAudioFormat(data: Buffer): AudioFormat | null {
  if (data.length < 12) return null;
  if (data.readUInt32BE(0) === 0x1a45dfa3) return 'webm';
  if (ascii(data, 0, 4) === 'OggS') return 'ogg';
  if (ascii(data, 0, 4) === 'RIFF' && ascii(data, 8, 12) === 'WAVE') return 'wav';
  if (ascii(data, 4, 8) === 'ftyp') return 'm4a';
  if (ascii(data, 0, 3) === 'ID3') return 'mp3';
  // A bare MPEG audio frame: 11 sync bits, a valid version, Layer III, a valid bitrate index.
  const [b0, b1, b2] = [data[0] ?? 0, data[1] ?? 0, data[2] ?? 0];
  if (b0 === 0xff && (b1 & 0xe0) === 0xe0 && (b1 & 0x18) !== 0x08 && (b1 & 0x06) === 0x02 && (b2 & 0xf0) !== 0xf0) {
    return 'mp3';
  }
  return null;
}

/**
 * True when a WAV file's `data` chunk declares more bytes than the file holds (cut off in
 * transit). Streamed WAVs that declare a placeholder size (0xFFFFFFFF or close to 2^31) pass.
 */
export function isTruncatedWav(data: Buffer): boolean {
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = ascii(data, offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === 'data') return size < 0x7fff0000 && offset + 8 + size > data.length;
    offset += 8 + size + (size % 2);
  }
  return true; // no data chunk at all
}
