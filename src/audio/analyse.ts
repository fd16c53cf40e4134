/**
 * Pure analysis of decoded mono PCM (float samples in [-1, 1]): where the speech is, whether it
 * is clipped, and the gain that brings it to a common loudness. No I/O, so it is unit-tested
 * with synthetic signals at every threshold.
 */

export const FRAME_MS = 10;
/** The loudest 10 ms frame must reach this level, or the take counts as silence. */
export const SILENCE_DBFS = -50;
/** Frames quieter than the loudest by more than this are not speech. */
export const SPEECH_RANGE_DB = 40;
/** Frames must rise this far above the noise floor (10th percentile frame) to count as speech. */
export const NOISE_MARGIN_DB = 12;
/** Kept before the first and after the last speech frame, so onsets and tails are not cut. */
export const PADDING_MS = 50;
/** A sample at or above this magnitude sits at full scale. */
export const FULL_SCALE = 0.99;
/** Share of speech samples sitting at full scale (in runs of 3 or more) that means "clipped throughout". */
export const CLIPPED_SHARE = 0.01;
/** Loudness target: speech-gated RMS level in dBFS, with the peak kept at or under PEAK_DBFS. */
export const TARGET_DBFS = -18;
export const PEAK_DBFS = -1;
export const MAX_GAIN_DB = 30;

export interface SpeechAnalysis {
  /** Loudest frame level (dBFS). */
  peakFrameDb: number;
  /** Speech span (first to last speech frame), in samples; null when silent. */
  speech: { start: number; end: number } | null;
  /** Trimmed clip bounds: speech span plus padding, within the recording. */
  clip: { start: number; end: number } | null;
  /** Share of speech samples in full-scale runs. */
  clippedShare: number;
  /** Linear gain to apply to the clip. */
  gain: number;
}

const toDb = (rms: number) => (rms > 0 ? 20 * Math.log10(rms) : -200);

function frameLevels(samples: Float32Array, frame: number): number[] {
  const levels: number[] = [];
  for (let start = 0; start < samples.length; start += frame) {
    const end = Math.min(samples.length, start + frame);
    let sum = 0;
    for (let i = start; i < end; i++) {
      const s = samples[i] as number;
      sum += s * s;
    }
    levels.push(toDb(Math.sqrt(sum / (end - start))));
  }
  return levels;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? -200;
}

export function analyseSpeech(samples: Float32Array, sampleRate: number): SpeechAnalysis {
  const frame = Math.max(1, Math.round((sampleRate * FRAME_MS) / 1000));
  const levels = frameLevels(samples, frame);
  const peakFrameDb = levels.length ? Math.max(...levels) : -200;
  const none = { peakFrameDb, speech: null, clip: null, clippedShare: 0, gain: 1 };
  if (peakFrameDb < SILENCE_DBFS) return none;

  // The noise-floor rule must not exclude the loudest frames themselves (a take that is all speech).
  const aboveNoise = Math.min(percentile(levels, 0.1) + NOISE_MARGIN_DB, peakFrameDb - 6);
  const threshold = Math.max(SILENCE_DBFS - 5, peakFrameDb - SPEECH_RANGE_DB, aboveNoise);
  const first = levels.findIndex((level) => level >= threshold);
  let last = first;
  for (let i = levels.length - 1; i >= 0; i--) {
    if ((levels[i] as number) >= threshold) {
      last = i;
      break;
    }
  }
  if (first < 0) return none;
  const speech = { start: first * frame, end: Math.min(samples.length, (last + 1) * frame) };
  const padding = Math.round((sampleRate * PADDING_MS) / 1000);
  const clip = { start: Math.max(0, speech.start - padding), end: Math.min(samples.length, speech.end + padding) };

  // Clipping: samples pinned at full scale for 3+ consecutive samples; single peaks touching it are fine.
  let pinned = 0;
  let run = 0;
  for (let i = speech.start; i < speech.end; i++) {
    if (Math.abs(samples[i] as number) >= FULL_SCALE) {
      run++;
      if (run === 3) pinned += 3;
      else if (run > 3) pinned++;
    } else run = 0;
  }
  const clippedShare = pinned / Math.max(1, speech.end - speech.start);

  // Loudness: RMS over speech frames only (gated), so pauses do not dilute the level.
  let energy = 0;
  let count = 0;
  let peak = 0;
  for (let f = first; f <= last; f++) {
    if ((levels[f] as number) < threshold) continue;
    for (let i = f * frame; i < Math.min(samples.length, (f + 1) * frame); i++) {
      const s = samples[i] as number;
      energy += s * s;
      count++;
    }
  }
  for (let i = clip.start; i < clip.end; i++) peak = Math.max(peak, Math.abs(samples[i] as number));
  const levelDb = toDb(Math.sqrt(energy / Math.max(1, count)));
  const gainDb = Math.min(TARGET_DBFS - levelDb, PEAK_DBFS - toDb(peak), MAX_GAIN_DB);
  return { peakFrameDb, speech, clip, clippedShare, gain: 10 ** (gainDb / 20) };
}

/** The clip with the gain applied, as a new array. */
export function applyGain(samples: Float32Array, clip: { start: number; end: number }, gain: number): Float32Array {
  const out = new Float32Array(clip.end - clip.start);
  for (let i = 0; i < out.length; i++) out[i] = (samples[clip.start + i] as number) * gain;
  return out;
}
