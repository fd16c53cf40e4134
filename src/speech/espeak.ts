/**
 * eSpeak NG (WebAssembly, from npm) in a worker thread, encoded to MP3 with lamejs. The worker
 * starts on first use and is kept warm; requests are queued to it one at a time (the engine is
 * single-threaded), each with a time limit after which the worker is replaced.
 */
import { Worker } from 'node:worker_threads';
import { type SpeechRequest, type SpeechResult, type SpeechSynthesizer, VOICE_STYLES } from './synthesizer.js';

const WORKER_URL = new URL('./espeak-worker.mjs', import.meta.url);

interface Pending {
  resolve(result: SpeechResult): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** What the speech worker thread posts back: `ready` once, then one answer per request id. */
type WorkerMessage =
  | { ready: true; id?: undefined }
  | { ready?: undefined; id: number; error: string }
  | { ready?: undefined; id: number; error?: undefined; mp3: Uint8Array; durationMs: number; voice: string };

export class EspeakSynthesizer implements SpeechSynthesizer {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly options: { timeoutMs?: number } = {}) {}

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_URL);
      worker.unref();
      this.worker = worker;
      worker.on('message', (message: WorkerMessage) => {
        if (message.ready) return resolve(worker);
        const entry = this.pending.get(message.id);
        if (!entry) return;
        this.pending.delete(message.id);
        clearTimeout(entry.timer);
        if (message.error !== undefined) entry.reject(new Error(`speech synthesis failed: ${message.error}`));
        else entry.resolve({ mp3: Buffer.from(message.mp3), durationMs: message.durationMs, voice: message.voice });
      });
      const fail = (err: Error) => {
        reject(err);
        this.reset(err);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (this.worker === worker) fail(new Error(`speech worker exited with code ${code}`));
      });
    });
    // A failed start is retried by the next request.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  private reset(err: Error): void {
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(err);
      this.pending.delete(id);
    }
    void worker?.terminate();
  }

  async synthesize(request: SpeechRequest): Promise<SpeechResult> {
    const worker = await this.start();
    const style = VOICE_STYLES[request.voiceStyle ?? 'neutral'];
    const id = this.nextId++;
    return new Promise<SpeechResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('speech synthesis timed out'));
        this.reset(new Error('speech worker restarted after a timeout'));
      }, this.options.timeoutMs ?? 15_000);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({
        id,
        text: request.text,
        variant: style.variant,
        pitch: style.pitch,
        rate: style.rate,
        language: request.language ?? null,
      });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    if (worker) await worker.terminate();
  }
}
