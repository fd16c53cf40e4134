/**
 * Shares a fixed number of slots (e.g. ffmpeg runs) between senders, so that one sender cannot
 * make the others wait. Each sender has its own queue (first come, first served within it); a
 * freed slot goes to the senders with waiting tasks in turn (round-robin). One sender never holds
 * more than `maxPerSender` slots (default: half, rounded up), even when nobody else is waiting:
 * a task cannot be pre-empted, so a slot taken by a long task is lost to a sender who arrives a
 * moment later, and only a share held back keeps that newcomer from waiting behind it.
 *
 * Waiting is bounded twice. One sender may have `maxPendingPerSender` tasks running or waiting;
 * a further one of its own is refused at once with `SenderQueueFullError` (that sender is sending
 * too much; the others are not affected). And `maxQueued` tasks may wait in all; beyond it any
 * task is refused with `QueueFullError` (the whole server is overloaded). A waiting task whose
 * `signal` aborts (its client went away) leaves the queue.
 */

export class QueueFullError extends Error {
  constructor(message = 'too many tasks are waiting') {
    super(message);
    this.name = 'QueueFullError';
  }
}

/** This sender already has `maxPendingPerSender` tasks running or waiting. */
export class SenderQueueFullError extends QueueFullError {
  constructor(readonly maxPendingPerSender: number) {
    super(`the sender already has ${maxPendingPerSender} tasks running or waiting`);
    this.name = 'SenderQueueFullError';
  }
}

export class WaitCancelledError extends Error {
  constructor() {
    super('the task was cancelled while it waited for a slot');
    this.name = 'WaitCancelledError';
  }
}

export interface FairSchedulerOptions {
  /** Tasks running at once in all. */
  concurrency: number;
  /** Tasks waiting in all; a further one is refused. 0: never wait. */
  maxQueued: number;
  /** Slots one sender may hold at once; default ceil(concurrency / 2). */
  maxPerSender?: number;
  /** Tasks one sender may have running or waiting; default maxPerSender + ceil(maxQueued / 2). */
  maxPendingPerSender?: number;
}

/** What a running task may ask about its sender while it runs. */
export interface SlotContext {
  /** True while the same sender has further tasks waiting: it is sending more than its share. */
  senderHasBacklog(): boolean;
}

interface Waiter {
  start(): void;
}

interface SenderState {
  running: number;
  waiting: Waiter[];
}

export class FairScheduler {
  readonly concurrency: number;
  readonly maxQueued: number;
  readonly maxPerSender: number;
  readonly maxPendingPerSender: number;
  private runningTotal = 0;
  private queuedTotal = 0;
  private readonly senders = new Map<string, SenderState>();
  /** Senders with waiting tasks, next to be served first; a served sender moves to the back. */
  private readonly turn: string[] = [];

  constructor(options: FairSchedulerOptions) {
    const { concurrency, maxQueued } = options;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
    if (!Number.isInteger(maxQueued) || maxQueued < 0)
      throw new Error(`maxQueued must be a non-negative integer, got ${maxQueued}`);
    this.concurrency = concurrency;
    this.maxQueued = maxQueued;
    this.maxPerSender = Math.min(concurrency, Math.max(1, options.maxPerSender ?? Math.ceil(concurrency / 2)));
    const pending = options.maxPendingPerSender ?? this.maxPerSender + Math.ceil(maxQueued / 2);
    if (!Number.isInteger(pending) || pending < 1)
      throw new Error(`maxPendingPerSender must be a positive integer, got ${pending}`);
    this.maxPendingPerSender = pending;
  }

  /**
   * Runs `task` in a slot when `sender`'s turn comes; throws SenderQueueFullError, QueueFullError
   * or WaitCancelledError instead.
   */
  async run<T>(sender: string, task: (slot: SlotContext) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw new WaitCancelledError();
    const state = this.stateOf(sender);
    if (state.running + state.waiting.length >= this.maxPendingPerSender) {
      this.forgetIfIdle(sender, state);
      throw new SenderQueueFullError(this.maxPendingPerSender);
    }
    if (state.waiting.length === 0 && this.mayStart(state)) this.take(state);
    else await this.wait(sender, state, signal);
    try {
      return await task({ senderHasBacklog: () => state.waiting.length > 0 });
    } finally {
      this.runningTotal--;
      state.running--;
      this.dispatch();
      this.forgetIfIdle(sender, state);
    }
  }

  /** Tasks running now. */
  get active(): number {
    return this.runningTotal;
  }

  /** Tasks waiting now. */
  get queued(): number {
    return this.queuedTotal;
  }

  /** Tasks of `sender` running or waiting now. */
  pendingOf(sender: string): number {
    const state = this.senders.get(sender);
    return state ? state.running + state.waiting.length : 0;
  }

  private stateOf(sender: string): SenderState {
    let state = this.senders.get(sender);
    if (!state) {
      state = { running: 0, waiting: [] };
      this.senders.set(sender, state);
    }
    return state;
  }

  private mayStart(state: SenderState): boolean {
    return this.runningTotal < this.concurrency && state.running < this.maxPerSender;
  }

  private take(state: SenderState): void {
    this.runningTotal++;
    state.running++;
  }

  private wait(sender: string, state: SenderState, signal: AbortSignal | undefined): Promise<void> {
    if (this.queuedTotal >= this.maxQueued) {
      this.forgetIfIdle(sender, state);
      throw new QueueFullError();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = state.waiting.indexOf(waiter);
        if (index === -1) return; // already started: the task runs to its end
        state.waiting.splice(index, 1);
        this.queuedTotal--;
        if (state.waiting.length === 0) this.turn.splice(this.turn.indexOf(sender), 1);
        this.forgetIfIdle(sender, state);
        reject(new WaitCancelledError());
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      state.waiting.push(waiter);
      this.queuedTotal++;
      if (state.waiting.length === 1) this.turn.push(sender);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands free slots to waiting senders in turn, skipping those at their share. */
  private dispatch(): void {
    while (this.runningTotal < this.concurrency) {
      const index = this.turn.findIndex((sender) => (this.senders.get(sender)?.running ?? 0) < this.maxPerSender);
      if (index === -1) return;
      const sender = this.turn[index] as string;
      const state = this.senders.get(sender) as SenderState;
      const waiter = state.waiting.shift() as Waiter;
      this.queuedTotal--;
      this.turn.splice(index, 1);
      if (state.waiting.length > 0) this.turn.push(sender);
      this.take(state);
      waiter.start();
    }
  }

  private forgetIfIdle(sender: string, state: SenderState): void {
    if (state.running === 0 && state.waiting.length === 0) this.senders.delete(sender);
  }
}
