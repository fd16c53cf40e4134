/**
 * Memory and CPU caps on each ffmpeg run: a run that exceeds them is stopped early and becomes a
 * 422 refusal (`audio_too_complex`), never a 500 nor minutes of a shared core.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FfmpegResourceLimitError, locatePrlimit, runFfmpeg } from '../src/audio/ffmpeg.js';
import { generated, patchedWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';

// Where prlimit is absent (the CI pass that hides system programs), its two cases are skipped:
// the /proc watcher's cases below cover that machine, and the other pass runs both.
const prlimit = locatePrlimit();
// Endless noise through a costly filter, discarded: pure CPU, nothing written.
const burnCpu = ['-v', 'error', '-f', 'lavfi', '-i', 'anoisesrc=r=192000', '-af', 'aresample=44101', '-f', 'null', '-'];
const MB = 1024 * 1024;

describe.each([
  ['prlimit', prlimit],
  ['the /proc watcher', null],
])('ffmpeg caps through %s', (_name, prlimitPath) => {
  it.skipIf(_name === 'prlimit' && prlimit === null)(
    'stops a run at its CPU-time cap, well before the wall-clock limit',
    async () => {
      const started = performance.now();
      const run = runFfmpeg(ffmpegPath(), burnCpu, {
        timeoutMs: 20_000,
        maxStdoutBytes: 1024,
        limits: { memoryBytes: 512 * MB, cpuSeconds: 1, prlimitPath },
      });
      await expect(run).rejects.toBeInstanceOf(FfmpegResourceLimitError);
      expect(performance.now() - started).toBeLessThan(10_000);
    },
  );

  it.skipIf(_name === 'prlimit' && prlimit === null)(
    'stops the 1 Hz resampling trick at its memory cap instead of letting it take a gigabyte',
    async () => {
      const input = `${generated('tiny-cap', 'sine=f=300:r=16000', 0.06)}.1hz.wav`;
      fs.writeFileSync(input, patchedWav(generated('tiny-cap', 'sine=f=300:r=16000', 0.06), { sampleRate: 1 }));
      const started = performance.now();
      const run = runFfmpeg(
        ffmpegPath(),
        ['-v', 'warning', '-f', 'wav', '-i', input, '-ac', '1', '-ar', '44100', '-f', 'f32le', 'pipe:1'],
        { timeoutMs: 20_000, maxStdoutBytes: 64 * MB, limits: { memoryBytes: 512 * MB, cpuSeconds: 20, prlimitPath } },
      );
      // Under the address-space cap ffmpeg gives up on the resampler (an error or no output);
      // the /proc watcher kills it once it is resident. Either way: quick, and no audio.
      const outcome = await run.then(
        (result) => result.stdout.length,
        (error: unknown) => error,
      );
      if (typeof outcome === 'number') expect(outcome).toBe(0);
      else expect(outcome).toBeInstanceOf(FfmpegResourceLimitError);
      expect(performance.now() - started).toBeLessThan(8_000);
    },
  );

  it('lets an ordinary run through untouched', async () => {
    const run = await runFfmpeg(
      ffmpegPath(),
      ['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=440:r=44100:d=2', '-ac', '1', '-f', 'f32le', 'pipe:1'],
      { timeoutMs: 20_000, maxStdoutBytes: 16 * MB, limits: { memoryBytes: 512 * MB, cpuSeconds: 20, prlimitPath } },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBe(2 * 44_100 * 4);
  });
});
