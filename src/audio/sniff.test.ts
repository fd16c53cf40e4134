import { describe, expect, it } from 'vitest';
import { isTruncatedWav, sniffAudioFormat } from './sniff.js';

const bytes = (hex: string, pad = 16) => Buffer.concat([Buffer.from(hex.replace(/\s/g, ''), 'hex'), Buffer.alloc(pad)]);

function wav(dataBytes: number, declared = dataBytes): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(Math.min(0xffffffff, 36 + declared), 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(declared, 40);
  return Buffer.concat([header, Buffer.alloc(dataBytes)]);
}

describe('sniffAudioFormat', () => {
  it.each([
    ['webm', bytes('1a45dfa3')],
    ['ogg', Buffer.concat([Buffer.from('OggS'), Buffer.alloc(20)])],
    ['wav', wav(10)],
    ['m4a', Buffer.concat([Buffer.from('00000020', 'hex'), Buffer.from('ftypM4A '), Buffer.alloc(20)])],
    ['mp3', Buffer.concat([Buffer.from('ID3'), Buffer.alloc(20)])],
    ['mp3', bytes('fffb9064')],
  ])('recognises %s', (format, data) => {
    expect(sniffAudioFormat(data)).toBe(format);
  });

  it.each([
    ['too short', Buffer.from('OggS')],
    ['FLAC', Buffer.concat([Buffer.from('fLaC'), Buffer.alloc(20)])],
    ['text', Buffer.from('hello world, not audio')],
    ['RIFF that is not WAVE', Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('AVI '), Buffer.alloc(8)])],
    ['MPEG layer II frame', bytes('fffd9064')],
  ])('refuses %s', (_name, data) => {
    expect(sniffAudioFormat(data)).toBeNull();
  });
});

describe('isTruncatedWav', () => {
  it('accepts complete files and streaming placeholders, refuses cut-off ones', () => {
    expect(isTruncatedWav(wav(100))).toBe(false);
    expect(isTruncatedWav(wav(100, 101))).toBe(true);
    expect(isTruncatedWav(wav(100, 0xffffffff))).toBe(false);
    expect(isTruncatedWav(wav(0).subarray(0, 36))).toBe(true);
  });
});
