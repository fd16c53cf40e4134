/**
 * Requests to a worker thread that answers one message per request: started on first use and
 * kept warm, each request with a time limit after which the worker is replaced (its other
 * requests fail and the next one starts a fresh worker). The worker posts `{ ready: true }` once
 * it has loaded, then `{ id, error }` or `{ id, ...result }` per request.
 *
 * Speech synthesis and picture rendering use it: both are CPU-bound WebAssembly that must never
 * run on the event loop. With `idleMs`, a worker that has had nothing to do for that long is
 * stopped (its heap is tens of MB: ARCHITECTURE.md, "Start and stop"); the next request starts it again.
 */
import { Worker } from 'node:worker_threads';

type Answer<Result> = { ready: true; id?: undefined } | { id: number; error: string } | ({ id: number } & Result);

interface Pending<Result> {
  resolve(result: Result): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export class WorkerClient<Request extends object, Result extends object> {
  private worker: Worker | null = null;
  private ready: Promise<Worker> | null = null;
  private readonly pending = new Map<number, Pending<Result>>();
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  /** The worker `warm` last warmed up (a replaced worker is cold again). */
  private warmed: Worker | null = null;

  /** `name` words the errors ("speech synthesis failed: …"). */
  constructor(
    private readonly script: URL,
    private readonly options: { name: string; timeoutMs: number; idleMs?: number },
  ) {}

  async request(request: Request): Promise<Result> {
    const worker = await this.start();
    clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${this.options.name} timed out`));
        this.reset(new Error(`${this.options.name} worker restarted after a timeout`));
      }, this.options.timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      worker.postMessage({ ...request, id });
    });
  }

  /**
   * Starts the worker ahead of its first request (errors are left to that request) and, once per
   * started worker, sends it `warmUp`, one request after another: a fresh WebAssembly engine is
   * slower for its first calls (compilation tiers, data loaded on first use), so these pay that
   * instead of the first real request. Answers resolve when the warm-up is done (never rejects).
   */
  async warm(warmUp: Request[] = []): Promise<void> {
    try {
      const worker = await this.start();
      if (warmUp.length === 0 || this.warmed === worker) return;
      this.warmed = worker;
      for (const request of warmUp) await this.request(request);
    } catch {
      // A failed warm-up is what the first real request would have met: it reports it.
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = null;
    this.ready = null;
    if (worker) await worker.terminate();
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    this.ready = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(this.script);
      worker.unref();
      this.worker = worker;
      worker.on('message', (message: Answer<Result>) => {
        if ('ready' in message && message.ready) {
          this.stopWhenIdle();
          return resolve(worker);
        }
        const entry = this.pending.get(message.id as number);
        if (!entry) return;
        this.pending.delete(message.id as number);
        clearTimeout(entry.timer);
        this.stopWhenIdle();
        if ('error' in message && typeof message.error === 'string') {
          entry.reject(new Error(`${this.options.name} failed: ${message.error}`));
        } else entry.resolve(message as Result);
      });
      const fail = (err: Error) => {
        reject(err);
        this.reset(err);
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (this.worker === worker) fail(new Error(`${this.options.name} worker exited with code ${code}`));
      });
    });
    // A failed start is retried by the next request.
    this.ready.catch(() => undefined);
    return this.ready;
  }

  /** Stops the worker once it has had no request for `idleMs` (restarted by the next request). */
  private stopWhenIdle(): void {
    const { idleMs } = this.options;
    if (idleMs === undefined || this.pending.size > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.size === 0) void this.close();
    }, idleMs);
    this.idleTimer.unref();
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
}
