/**
 * A speech engine for tests whose subject is not speech (payments, callbacks, dashboards, pages):
 * it answers at once with a small, valid MP3, so those tests neither start the eSpeak NG worker
 * nor wait for it. tests/entities-flow.test.ts keeps the real engine end to end. It is also the
 * proof that a second engine is one file: it implements the whole `SpeechEngine` interface, and
 * tests/speech-engine.test.ts has the config choose it.
 */
import type { SpeechEngine, SpeechRequest, SpeechResult } from '../../src/speech/synthesizer.js';

/** MPEG-1 Layer III, 64 kb/s, 44.1 kHz, mono, no CRC: 1152 samples (26.1 ms) in 208 bytes per frame. */
const FRAME_HEADER = [0xff, 0xfb, 0x50, 0xc4];
const FRAME_BYTES = 208;
const FRAMES = 16;
const DURATION_MS = Math.round((FRAMES * 1152 * 1000) / 44_100);

/**
 * Built by hand rather than encoded: an all-zero side-info and main-data block is a valid frame of
 * silence (every decoder accepts it), and an encoder would cost hundreds of milliseconds to warm up.
 */
function silentMp3(): Buffer {
  const frame = Buffer.alloc(FRAME_BYTES);
  frame.set(FRAME_HEADER);
  return Buffer.concat(Array.from({ length: FRAMES }, () => frame));
}

let cached: Buffer | null = null;

export class FakeSpeech implements SpeechEngine {
  /** Every request, in order, so tests can check what would have been spoken. */
  readonly requests: SpeechRequest[] = [];

  async synthesize(request: SpeechRequest): Promise<SpeechResult> {
    this.requests.push(request);
    cached ??= silentMp3();
    // A copy: callers own the buffer they get, as with the real engine.
    return {
      mp3: Buffer.from(cached),
      durationMs: DURATION_MS,
      voice: 'fake',
      ...(request.phonemes === undefined ? {} : { spokenIpa: request.phonemes }),
    };
  }

  /** Not a pronunciation: each letter of the text, lower-cased, as if it were its own phoneme. */
  /** Every spelling-to-IPA request, in order. */
  readonly phonemizeRequests: { text: string; language?: string | undefined }[] = [];

  async phonemize(request: { text: string; language?: string | undefined }): Promise<{ ipa: string; voice: string }> {
    this.phonemizeRequests.push(request);
    return { ipa: request.text.toLowerCase(), voice: 'fake' };
  }

  async close(): Promise<void> {}
}

/** `createTestApp({ overrides: fakeSpeech() })` for tests that publish entities without testing speech. */
export const fakeSpeech = (): { speech: SpeechEngine } => ({ speech: new FakeSpeech() });
