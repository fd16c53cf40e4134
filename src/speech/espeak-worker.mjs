// Worker thread of the eSpeak NG synthesizer (see espeak.ts). Plain JavaScript so it runs the same
// under tsx, vitest and the compiled build. Receives {id, text, variant, pitch, rate, language};
// answers {id, mp3, durationMs, voice} or {id, error}.
import { parentPort } from 'node:worker_threads';
import { Mp3Encoder } from '@breezystack/lamejs';
import initialize from '@echogarden/espeak-ng-emscripten';

const SAMPLE_RATE = 22050;
const module_ = await initialize();
const engine = new module_.eSpeakNGWorker();
const languages = new Set(
  engine.list_voices().flatMap((voice) => voice.languages.map((language) => language.name.toLowerCase())),
);

// One encoder for the worker's life: a stream ends with flush(), and the next encode starts a
// new, independently decodable stream. A fresh encoder costs far more on its first frames
// (docs/performance.md).
const encoder = new Mp3Encoder(1, SAMPLE_RATE, 64);
encoder.encodeBuffer(new Int16Array(SAMPLE_RATE / 10));
encoder.flush();

function pickLanguage(hint) {
  if (typeof hint !== 'string' || hint === '') return 'en-us';
  const tag = hint.toLowerCase();
  if (languages.has(tag)) return tag;
  const primary = tag.split('-')[0];
  return languages.has(primary) ? primary : 'en-us';
}

function synthesize({ text, variant, pitch, rate, language }) {
  const base = pickLanguage(language);
  let voice = variant ? `${base}+${variant}` : base;
  if (engine.set_voice(voice) !== 0) {
    voice = 'en-us';
    engine.set_voice(voice);
  }
  engine.set_pitch(pitch);
  engine.set_rate(rate);
  const chunks = [];
  engine.synthesize(text, (samples) => {
    if (samples && samples.length > 0) chunks.push(Int16Array.from(samples));
    return 0;
  });
  const total = chunks.reduce((n, chunk) => n + chunk.length, 0);
  const pcm = new Int16Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    pcm.set(chunk, offset);
    offset += chunk.length;
  }
  const parts = [];
  for (let i = 0; i < pcm.length; i += 1152 * 16) parts.push(encoder.encodeBuffer(pcm.subarray(i, i + 1152 * 16)));
  parts.push(encoder.flush());
  const mp3 = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  offset = 0;
  for (const part of parts) {
    mp3.set(part, offset);
    offset += part.length;
  }
  return { mp3, durationMs: Math.round((total / SAMPLE_RATE) * 1000), voice };
}

parentPort.on('message', (message) => {
  try {
    const result = synthesize(message);
    parentPort.postMessage({ id: message.id, ...result }, [result.mp3.buffer]);
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
parentPort.postMessage({ ready: true });
