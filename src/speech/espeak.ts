/**
 * eSpeak NG (WebAssembly, from npm) in a worker thread, encoded to MP3 with lamejs. The worker
 * starts on first use and is kept warm; requests are queued to it one at a time (the engine is
 * single-threaded), each with a time limit after which the worker is replaced.
 */
import { WorkerClient } from '../lib/worker-client.js';
import { type SpeechRequest, type SpeechResult, type SpeechSynthesizer, VOICE_STYLES } from './synthesizer.js';

const WORKER_URL = new URL('./espeak-worker.mjs', import.meta.url);
/**
 * The engine's thread holds tens of MB once loaded: stopped after 10 minutes without a request,
 * so a burst of paid profiles does not keep it for good (a cold start is slower; docs/performance.md).
 */
const IDLE_MS = 10 * 60_000;

interface WorkerRequest {
  text: string;
  variant: string | null;
  pitch: number;
  rate: number;
  language: string | null;
}

export class EspeakSynthesizer implements SpeechSynthesizer {
  private readonly client: WorkerClient<WorkerRequest, { mp3: Uint8Array; durationMs: number; voice: string }>;

  constructor(options: { timeoutMs?: number } = {}) {
    this.client = new WorkerClient(WORKER_URL, {
      name: 'speech synthesis',
      timeoutMs: options.timeoutMs ?? 15_000,
      idleMs: IDLE_MS,
    });
  }

  async synthesize(request: SpeechRequest): Promise<SpeechResult> {
    const style = VOICE_STYLES[request.voiceStyle ?? 'neutral'];
    const answer = await this.client.request({
      text: request.text,
      variant: style.variant,
      pitch: style.pitch,
      rate: style.rate,
      language: request.language ?? null,
    });
    return { mp3: Buffer.from(answer.mp3), durationMs: answer.durationMs, voice: answer.voice };
  }

  prepare(): void {
    this.client.warm();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
