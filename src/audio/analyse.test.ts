import { describe, expect, it } from 'vitest';
import { analyseSpeech, applyGain, CLIPPED_SHARE, PADDING_MS, SILENCE_DBFS, TARGET_DBFS } from './analyse.js';
import { MAX_SPEECH_MS, MIN_SPEECH_MS } from './pipeline.js';

const RATE = 44_100;

/** Silence, then a 220 Hz tone of `amplitude` for `seconds`, then silence. */
function tone(seconds: number, amplitude = 0.3, silence = 0.5): Float32Array {
  const pad = Math.round(silence * RATE);
  const length = Math.round(seconds * RATE);
  const out = new Float32Array(pad * 2 + length);
  for (let i = 0; i < length; i++) out[pad + i] = amplitude * Math.sin((2 * Math.PI * 220 * i) / RATE);
  return out;
}

const speechMs = (samples: Float32Array) => {
  const { speech } = analyseSpeech(samples, RATE);
  return speech ? ((speech.end - speech.start) / RATE) * 1000 : 0;
};

describe('analyseSpeech', () => {
  it('finds the speech span to within one 10 ms frame and pads the clip', () => {
    const result = analyseSpeech(tone(1.2), RATE);
    expect(result.speech).not.toBeNull();
    expect(Math.abs(speechMs(tone(1.2)) - 1200)).toBeLessThanOrEqual(10);
    const clipMs = (((result.clip?.end ?? 0) - (result.clip?.start ?? 0)) / RATE) * 1000;
    expect(Math.abs(clipMs - (1200 + 2 * PADDING_MS))).toBeLessThanOrEqual(20);
  });

  it('measures lengths around the 0.3 s and 15 s limits', () => {
    expect(speechMs(tone(0.29))).toBeLessThan(MIN_SPEECH_MS);
    expect(speechMs(tone(0.31))).toBeGreaterThanOrEqual(MIN_SPEECH_MS);
    expect(speechMs(tone(14.98, 0.3, 0.2))).toBeLessThanOrEqual(MAX_SPEECH_MS);
    expect(speechMs(tone(15.02, 0.3, 0.2))).toBeGreaterThan(MAX_SPEECH_MS);
  });

  it('calls a take silent when its loudest frame is under the silence level', () => {
    const under = 10 ** ((SILENCE_DBFS - 1) / 20) * Math.SQRT2; // sine RMS = amplitude / sqrt(2)
    const over = 10 ** ((SILENCE_DBFS + 1) / 20) * Math.SQRT2;
    expect(analyseSpeech(tone(1, under), RATE).speech).toBeNull();
    expect(analyseSpeech(tone(1, over), RATE).speech).not.toBeNull();
    expect(analyseSpeech(new Float32Array(RATE), RATE).speech).toBeNull();
    expect(analyseSpeech(new Float32Array(0), RATE).speech).toBeNull();
  });

  it('ignores steady background noise when finding the speech', () => {
    const samples = tone(1, 0.3, 1);
    let seed = 1;
    for (let i = 0; i < samples.length; i++) {
      seed = (seed * 16807) % 2147483647;
      samples[i] = (samples[i] as number) + ((seed / 2147483647) * 2 - 1) * 0.003;
    }
    expect(Math.abs(speechMs(samples) - 1000)).toBeLessThanOrEqual(20);
  });

  it('flags clipping only when pinned samples pass the threshold share', () => {
    const clipped = tone(1, 3).map((s) => Math.max(-1, Math.min(1, s)));
    expect(analyseSpeech(clipped, RATE).clippedShare).toBeGreaterThan(CLIPPED_SHARE);
    // A loud take whose few highest peaks touch full scale is not "clipped throughout".
    const peaks = tone(1, 0.5);
    for (const at of [30_000, 40_000, 50_000, 60_000]) peaks.set([1, 1, 1, 1, 1], at);
    const share = analyseSpeech(peaks, RATE).clippedShare;
    expect(share).toBeGreaterThan(0);
    expect(share).toBeLessThan(CLIPPED_SHARE);
  });

  it('brings quiet and loud speech to the target level without exceeding the peak limit', () => {
    for (const amplitude of [0.01, 0.1, 0.5]) {
      const samples = tone(1, amplitude);
      const { clip, gain } = analyseSpeech(samples, RATE);
      const out = applyGain(samples, clip as { start: number; end: number }, gain);
      let sum = 0;
      let count = 0;
      let peak = 0;
      for (const s of out) {
        peak = Math.max(peak, Math.abs(s));
        if (Math.abs(s) > 1e-6) {
          sum += s * s;
          count++;
        }
      }
      const rmsDb = 20 * Math.log10(Math.sqrt(sum / count));
      expect(peak).toBeLessThanOrEqual(10 ** (-1 / 20) + 1e-6);
      // A sine's crest factor (3 dB) lets it reach the target exactly unless the peak limit binds.
      expect(rmsDb).toBeGreaterThan(TARGET_DBFS - 1.5);
      expect(rmsDb).toBeLessThanOrEqual(TARGET_DBFS + 0.5);
    }
  });
});
