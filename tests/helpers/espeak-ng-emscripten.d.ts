/** @echogarden/espeak-ng-emscripten ships no types; only what tests/helpers/speech.ts uses. */
declare module '@echogarden/espeak-ng-emscripten' {
  interface ESpeakNGWorker {
    set_voice(name: string): number;
    set_rate(wordsPerMinute: number): void;
    set_pitch(pitch: number): void;
    /** Calls `onSamples` with 16-bit mono PCM chunks at 22.05 kHz; returning non-zero stops synthesis. */
    synthesize(text: string, onSamples: (samples: Int16Array | null) => number): void;
  }
  interface ESpeakNGModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }
  export default function initialize(): Promise<ESpeakNGModule>;
}
