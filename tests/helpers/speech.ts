/**
 * Spoken test audio from the eSpeak NG WebAssembly engine the service itself uses
 * (@echogarden/espeak-ng-emscripten), so no `espeak-ng` program is needed. The engine runs
 * in-process and synchronously, so fixture helpers stay synchronous; it starts when this module
 * is first imported (under a second).
 */
import initialize from '@echogarden/espeak-ng-emscripten';

/** eSpeak NG's output: 16-bit mono PCM at this rate. */
export const SPEECH_SAMPLE_RATE = 22_050;

const engine = new (await initialize()).eSpeakNGWorker();

/** PCM of `text` spoken by `voice` (an eSpeak NG voice such as `en-us`) at `wordsPerMinute`. */
export function speechPcm(text: string, options: { voice?: string; wordsPerMinute?: number } = {}): Int16Array {
  const voice = options.voice ?? 'en-us';
  if (engine.set_voice(voice) !== 0) throw new Error(`eSpeak NG has no voice ${voice}`);
  engine.set_rate(options.wordsPerMinute ?? 175);
  engine.set_pitch(50);
  const chunks: Int16Array[] = [];
  engine.synthesize(text, (samples) => {
    // The engine reuses its buffer between calls: copy each chunk.
    if (samples && samples.length > 0) chunks.push(Int16Array.from(samples));
    return 0;
  });
  const pcm = new Int16Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    pcm.set(chunk, offset);
    offset += chunk.length;
  }
  if (pcm.length === 0) throw new Error(`eSpeak NG produced no audio for ${JSON.stringify(text)}`);
  return pcm;
}

/** A canonical 44-byte-header WAV file (PCM, 16-bit, mono). */
export function wavBytes(pcm: Int16Array, sampleRate = SPEECH_SAMPLE_RATE): Buffer {
  const data = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // bytes per second
  header.writeUInt16LE(2, 32); // bytes per frame
  header.writeUInt16LE(16, 34); // bits per sample
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
