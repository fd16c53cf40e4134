// Worker thread of the eSpeak NG synthesizer (see espeak.ts). Plain JavaScript so it runs the same
// under tsx, vitest and the compiled build. Requests, each with an id:
//   {kind: 'synthesize', text, variant, pitch, rate, language} → {mp3, durationMs, voice, spokenIpa}
//   {kind: 'phonemize', text, language} → {ipa, voice}
//   {kind: 'inventory', language} → {voice, phonemes: [{mnemonic, ipa}]}
// or {id, error}. `text` may hold eSpeak phoneme mnemonics in [[…]] (espeak.ts builds them).
import { TextDecoder } from 'node:util';
import { parentPort } from 'node:worker_threads';
import { Mp3Encoder } from '@breezystack/lamejs';
import initialize from '@echogarden/espeak-ng-emscripten';

const SAMPLE_RATE = 22050;
const DATA_DIR = '/usr/share/espeak-ng-data';
const module_ = await initialize();
const engine = new module_.eSpeakNGWorker();
const voices = engine.list_voices();
const languages = new Set(voices.flatMap((voice) => voice.languages.map((language) => language.name.toLowerCase())));

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

function setVoice(language, variant) {
  const base = pickLanguage(language);
  let voice = variant ? `${base}+${variant}` : base;
  if (engine.set_voice(voice) !== 0) {
    voice = 'en-us';
    engine.set_voice(voice);
  }
  return { base, voice };
}

/** PCM of `text` (with [[…]] read as phonemes) and the IPA of the phonemes eSpeak spoke. */
function speak(text) {
  const chunks = [];
  const spoken = [];
  engine.synthesize(text, (samples, events) => {
    if (samples && samples.length > 0) chunks.push(Int16Array.from(samples));
    for (const event of events) {
      if (event.type === 'phoneme') spoken.push(event.id);
      else if (event.type === 'word' && spoken.length > 0) spoken.push(' ');
    }
    return 0;
  });
  const total = chunks.reduce((n, chunk) => n + chunk.length, 0);
  const pcm = new Int16Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    pcm.set(chunk, offset);
    offset += chunk.length;
  }
  return { pcm, spokenIpa: spoken.join('').replace(/\s+/g, ' ').trim() };
}

function encodeMp3(pcm) {
  const parts = [];
  for (let i = 0; i < pcm.length; i += 1152 * 16) parts.push(encoder.encodeBuffer(pcm.subarray(i, i + 1152 * 16)));
  parts.push(encoder.flush());
  const mp3 = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    mp3.set(part, offset);
    offset += part.length;
  }
  return mp3;
}

function synthesize({ text, variant, pitch, rate, language }) {
  const { voice } = setVoice(language, variant);
  engine.set_pitch(pitch);
  engine.set_rate(rate);
  const { pcm, spokenIpa } = speak(text);
  return { mp3: encodeMp3(pcm), durationMs: Math.round((pcm.length / SAMPLE_RATE) * 1000), voice, spokenIpa };
}

/** A C string the engine returned, decoded from its memory. */
function cString(pointer) {
  const start = module_.getPointer(pointer);
  let end = start;
  while (module_.HEAPU8[end] !== 0) end++;
  return new TextDecoder().decode(module_.HEAPU8.subarray(start, end));
}

function phonemize({ text, language }) {
  const { voice } = setVoice(language, null);
  // eSpeak separates phonemes with "_" and clauses with " | "; the IPA keeps words and drops both.
  const raw = cString(engine.convert_to_phonemes(text, true));
  const ipa = raw.replaceAll(' | ', ' ').replaceAll('_', '').replace(/\s+/g, ' ').trim();
  return { ipa, voice };
}

// --- The phonemes of a voice, for IPA input -------------------------------------------------

/** eSpeak's compiled phoneme tables (`phontab`): each a list of mnemonics, inheriting from another table. */
function readPhonemeTables() {
  const bytes = module_.FS.readFile(`${DATA_DIR}/phontab`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tables = [];
  let at = 4;
  for (let t = view.getInt32(0, true); t > 0; t--) {
    const count = bytes[at];
    const includes = bytes[at + 1];
    const name = new TextDecoder().decode(bytes.subarray(at + 4, at + 36)).replace(/\0[\s\S]*$/, '');
    at += 36;
    const phonemes = [];
    for (let i = 0; i < count; i++, at += 16) {
      let mnemonic = '';
      for (let k = 0; k < 4 && bytes[at + k] !== 0; k++) mnemonic += String.fromCharCode(bytes[at + k]);
      phonemes.push({ mnemonic, code: bytes[at + 10], type: bytes[at + 11] });
    }
    tables.push({ name, includes, phonemes });
  }
  return tables;
}

let phonemeTables = null;
const inventories = new Map();
/** Phoneme types eSpeak can speak on their own (0 pause, 1 stress and 9 virtual are not sounds). */
const SPOKEN_TYPES = new Set([2, 3, 4, 5, 6, 7, 8]);

/** The voice's phoneme table: named by its voice file's `phonemes` line, else by its language. */
function phonemeTableOf(base) {
  const voice = voices.find((v) => v.languages.some((language) => language.name.toLowerCase() === base));
  let declared = null;
  try {
    const file = new TextDecoder().decode(module_.FS.readFile(`${DATA_DIR}/lang/${voice.identifier}`));
    declared = /^\s*phonemes\s+(\S+)/m.exec(file)?.[1] ?? null;
  } catch {
    // No voice file: the language's own table, below.
  }
  const names = [declared, base, base.split('-')[0]];
  return names.find((name) => name && phonemeTables.some((table) => table.name === name)) ?? 'base1';
}

/**
 * Every phoneme of the voice's table (its own and those it inherits) with the IPA eSpeak says
 * for it, learnt by speaking each once (about half a second per language, then cached).
 */
function inventory({ language }) {
  const { base, voice } = setVoice(language, null);
  const cached = inventories.get(base);
  if (cached) return { voice, phonemes: cached };
  phonemeTables ??= readPhonemeTables();
  const chain = [];
  const name = phonemeTableOf(base);
  for (let table = phonemeTables.find((t) => t.name === name); table;) {
    chain.unshift(table);
    table = table.includes > 0 ? phonemeTables[table.includes - 1] : undefined;
  }
  const byCode = new Map();
  for (const table of chain) for (const phoneme of table.phonemes) byCode.set(phoneme.code, phoneme);
  const phonemes = [];
  for (const { mnemonic, type } of byCode.values()) {
    if (!SPOKEN_TYPES.has(type) || mnemonic.includes(']')) continue;
    // Spoken in a frame, not alone: eSpeak changes a phoneme at a word's end (German devoices a
    // final g, US English tenses a final ɪ), so a consonant is read before a vowel, a vowel between consonants.
    const vowel = type === 2;
    const spoken = [];
    engine.synthesize(vowel ? `[[t'${mnemonic}t]]` : `[[${mnemonic}'a]]`, (_samples, events) => {
      for (const event of events) if (event.type === 'phoneme') spoken.push(event.id);
      return 0;
    });
    phonemes.push({ mnemonic, ipa: spoken[vowel ? 1 : 0] ?? '' });
  }
  inventories.set(base, phonemes);
  return { voice, phonemes };
}

const HANDLERS = { synthesize, phonemize, inventory };

parentPort.on('message', (message) => {
  try {
    const handler = HANDLERS[message.kind];
    if (!handler) throw new Error(`unknown request ${String(message.kind)}`);
    const result = handler(message);
    parentPort.postMessage({ id: message.id, ...result }, result.mp3 ? [result.mp3.buffer] : []);
  } catch (err) {
    parentPort.postMessage({ id: message.id, error: err instanceof Error ? err.message : String(err) });
  }
});
parentPort.postMessage({ ready: true });
