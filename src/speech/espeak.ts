/**
 * eSpeak NG (WebAssembly, from npm) in a worker thread, encoded to MP3 with lamejs. The worker
 * starts on first use and is kept warm; requests are queued to it one at a time (the engine is
 * single-threaded), each with a time limit after which the worker is replaced.
 */
import { WorkerClient } from '../lib/worker-client.js';
import { type EspeakPhoneme, ipaTable, ipaToEspeak } from './espeak-phonemes.js';
import {
  type SpeechEngine,
  type SpeechRequest,
  type SpeechResult,
  UnknownPhonemesError,
  type VoiceStyle,
} from './synthesizer.js';

const WORKER_URL = new URL('./espeak-worker.mjs', import.meta.url);
/**
 * The engine's thread holds tens of MB once loaded: stopped after 10 minutes without a request,
 * so a burst of paid profiles does not keep it for good (a cold start is slower; docs/performance.md).
 */
const IDLE_MS = 10 * 60_000;
/**
 * What a warm-up speaks: eSpeak NG and lamejs are several times slower for their first calls
 * (WebAssembly and JIT tiers, voice data read on first use) than from about the fifth on
 * (bench/entities.ts, "Speech synthesis per name"). The names with numbers matter: agents are
 * often numbered or versioned, numbers are read by code of their own, and after the five plain
 * names alone the first numbered name still cost twice a warm one.
 */
const WARM_UP_NAMES = [
  'Ada',
  'Grace Hopper',
  'Zoë Concierge',
  'Professor Bartholomew Quackenbush',
  'Meeting Agent',
  'Support Agent 24/7',
  'Model 3000 version 2.5',
  'Research Assistant Number 1,234,567',
];

/** Each neutral style as an eSpeak NG voice variant, pitch (0-99) and speaking rate (words per minute). */
export const ESPEAK_STYLES = {
  neutral: { variant: null, pitch: 50, rate: 160 },
  warm: { variant: 'm3', pitch: 40, rate: 150 },
  bright: { variant: 'f4', pitch: 65, rate: 170 },
  deep: { variant: 'm1', pitch: 25, rate: 145 },
  female: { variant: 'f3', pitch: 55, rate: 160 },
  male: { variant: 'm2', pitch: 45, rate: 160 },
  robotic: { variant: 'robosoft', pitch: 50, rate: 155 },
  whisper: { variant: 'whisper', pitch: 50, rate: 145 },
} as const satisfies Record<VoiceStyle, { variant: string | null; pitch: number; rate: number }>;

/**
 * BCP 47 languages whose eSpeak voice has another name (eSpeak names most voices by the tag:
 * `fr`, `en-gb`, `pt-br`). Anything else is tried as written, then by its primary subtag, and
 * falls back to US English (the worker knows which voices exist).
 */
const ESPEAK_LANGUAGES: Record<string, string> = {
  en: 'en-us',
  zh: 'cmn',
  'zh-cn': 'cmn',
  'zh-sg': 'cmn',
  'zh-tw': 'cmn',
  'zh-hans': 'cmn',
  'zh-hant': 'cmn',
  'zh-hk': 'yue',
  'zh-mo': 'yue',
  'zh-yue': 'yue',
  'zh-hant-hk': 'yue',
  nb: 'nb',
  no: 'nb',
  he: 'he',
  iw: 'he',
  fil: 'tl',
};

export function espeakLanguageFor(language: string | undefined): string | null {
  if (language === undefined || language.trim() === '') return null;
  const tag = language.trim().toLowerCase().replaceAll('_', '-');
  return ESPEAK_LANGUAGES[tag] ?? tag;
}

type WorkerRequest =
  | { kind: 'synthesize'; text: string; variant: string | null; pitch: number; rate: number; language: string | null }
  | { kind: 'phonemize'; text: string; language: string | null }
  | { kind: 'inventory'; language: string | null };

interface WorkerAnswer {
  mp3: Uint8Array;
  durationMs: number;
  voice: string;
  spokenIpa: string;
  ipa: string;
  phonemes: EspeakPhoneme[];
}

/** Text spoken as text: `[[` would switch eSpeak to phoneme input, so it is split. */
function plainText(text: string): string {
  return text.replaceAll('[[', '[ [');
}

export class EspeakSynthesizer implements SpeechEngine {
  private readonly client: WorkerClient<WorkerRequest, WorkerAnswer>;
  /** IPA → mnemonic per eSpeak voice, learnt from the worker once per language. */
  private readonly ipaTables = new Map<string, Promise<{ voice: string; table: Map<string, string> }>>();

  constructor(options: { timeoutMs?: number } = {}) {
    this.client = new WorkerClient(WORKER_URL, {
      name: 'speech synthesis',
      timeoutMs: options.timeoutMs ?? 15_000,
      idleMs: IDLE_MS,
    });
  }

  async synthesize(request: SpeechRequest): Promise<SpeechResult> {
    const style = ESPEAK_STYLES[request.voiceStyle ?? 'neutral'];
    const language = espeakLanguageFor(request.language);
    const text = request.phonemes === undefined ? plainText(request.text) : await this.phonemeText(request.phonemes, language);
    const answer = await this.client.request({ kind: 'synthesize', text, ...style, language });
    return { mp3: Buffer.from(answer.mp3), durationMs: answer.durationMs, voice: answer.voice, spokenIpa: answer.spokenIpa };
  }

  async phonemize(request: { text: string; language?: string | undefined }): Promise<{ ipa: string; voice: string }> {
    const answer = await this.client.request({
      kind: 'phonemize',
      text: plainText(request.text),
      language: espeakLanguageFor(request.language),
    });
    return { ipa: answer.ipa, voice: answer.voice };
  }

  private async phonemeText(ipa: string, language: string | null): Promise<string> {
    const key = language ?? '';
    let known = this.ipaTables.get(key);
    if (!known) {
      known = this.client
        .request({ kind: 'inventory', language })
        .then((answer) => ({ voice: answer.voice, table: ipaTable(answer.phonemes) }));
      this.ipaTables.set(key, known);
      // A failed load (a timeout) is tried again by the next request.
      known.catch(() => this.ipaTables.delete(key));
    }
    const { voice, table } = await known;
    const converted = ipaToEspeak(ipa, table);
    if ('unknown' in converted) throw new UnknownPhonemesError(converted.unknown, voice);
    return converted.text;
  }

  prepare(): void {
    // Only the start: a paying retry that follows at once should not queue behind warm-up names.
    void this.client.warm();
  }

  /** Loads the engine and speaks a few names in the default style, so the first paid name is spoken at warm speed. */
  warmUp(): Promise<void> {
    const style = ESPEAK_STYLES.neutral;
    return this.client.warm(WARM_UP_NAMES.map((text) => ({ kind: 'synthesize' as const, text, ...style, language: null })));
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
