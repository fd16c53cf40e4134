import { describe, expect, it } from 'vitest';
import { FairScheduler, QueueFullError, SenderQueueFullError, WaitCancelledError } from './fair-scheduler.js';

/** A task that runs until the test finishes it, recording when it started. */
class FakeTasks {
  readonly started: string[] = [];
  private readonly finishers = new Map<string, () => void>();

  submit(scheduler: FairScheduler, sender: string, name: string, signal?: AbortSignal): Promise<string> {
    return scheduler.run(
      sender,
      () =>
        new Promise<string>((resolve) => {
          this.started.push(name);
          this.finishers.set(name, () => resolve(name));
        }),
      signal,
    );
  }

  async finish(name: string): Promise<void> {
    const finish = this.finishers.get(name);
    if (!finish) throw new Error(`${name} has not started`);
    finish();
    // Let the scheduler's `finally` and the next task's start run.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

describe('FairScheduler', () => {
  it('lets one sender use at most half the slots, even alone', async () => {
    const scheduler = new FairScheduler({ concurrency: 4, maxQueued: 10 });
    const tasks = new FakeTasks();
    const done = ['a1', 'a2', 'a3'].map((name) => tasks.submit(scheduler, 'a', name));
    await flush();
    expect(tasks.started).toEqual(['a1', 'a2']);
    expect(scheduler.active).toBe(2);
    expect(scheduler.queued).toBe(1);
    // A newcomer finds a free slot at once instead of waiting behind a's long tasks.
    const b = tasks.submit(scheduler, 'b', 'b1');
    await flush();
    expect(tasks.started).toEqual(['a1', 'a2', 'b1']);
    await tasks.finish('a1');
    expect(tasks.started).toEqual(['a1', 'a2', 'b1', 'a3']);
    await tasks.finish('a2');
    await tasks.finish('a3');
    await tasks.finish('b1');
    expect(await Promise.all([...done, b])).toEqual(['a1', 'a2', 'a3', 'b1']);
    expect(scheduler.active).toBe(0);
    expect(scheduler.queued).toBe(0);
  });

  it('serves waiting senders in turn, first come first served within each', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, maxQueued: 20, maxPendingPerSender: 21 });
    const tasks = new FakeTasks();
    // One sender queues many tasks first; two others arrive later with fewer.
    const all = [
      ...['a1', 'a2', 'a3', 'a4'].map((n) => tasks.submit(scheduler, 'a', n)),
      ...['b1', 'b2'].map((n) => tasks.submit(scheduler, 'b', n)),
      tasks.submit(scheduler, 'c', 'c1'),
    ];
    await flush();
    for (const name of ['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']) await tasks.finish(name);
    await Promise.all(all);
    expect(tasks.started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3', 'b2', 'a4']);
  });

  it('never lets one sender starve another: the other always gets its share of slots', async () => {
    const scheduler = new FairScheduler({ concurrency: 2, maxQueued: 50, maxPendingPerSender: 51 });
    const tasks = new FakeTasks();
    const hostile = Array.from({ length: 20 }, (_, i) => tasks.submit(scheduler, 'hostile', `h${i}`));
    await flush();
    expect(tasks.started).toEqual(['h0']); // ceil(2 / 2) = 1 slot while alone
    const normal = tasks.submit(scheduler, 'normal', 'n0');
    await flush();
    expect(tasks.started).toEqual(['h0', 'n0']); // the held-back slot: no wait at all
    await tasks.finish('n0');
    expect(await normal).toBe('n0');
    for (let i = 0; i < 20; i++) await tasks.finish(`h${i}`);
    await Promise.all(hostile);
  });

  it('refuses tasks beyond the queue bounds, per sender (running or waiting) and in all', async () => {
    const scheduler = new FairScheduler({ concurrency: 2, maxQueued: 3, maxPendingPerSender: 3 });
    const tasks = new FakeTasks();
    const running = [tasks.submit(scheduler, 'a', 'a1'), tasks.submit(scheduler, 'b', 'b1')];
    const waiting = [tasks.submit(scheduler, 'a', 'a2'), tasks.submit(scheduler, 'a', 'a3')];
    expect(scheduler.pendingOf('a')).toBe(3);
    await expect(tasks.submit(scheduler, 'a', 'a4')).rejects.toBeInstanceOf(SenderQueueFullError); // a's own bound
    waiting.push(tasks.submit(scheduler, 'c', 'c1'));
    const total = tasks.submit(scheduler, 'd', 'd1');
    await expect(total).rejects.toBeInstanceOf(QueueFullError); // the total bound
    await expect(total).rejects.not.toBeInstanceOf(SenderQueueFullError);
    expect(scheduler.queued).toBe(3);
    for (const name of ['a1', 'b1', 'a2', 'c1', 'a3']) await tasks.finish(name);
    await Promise.all([...running, ...waiting]);
    expect(tasks.started).toEqual(['a1', 'b1', 'a2', 'c1', 'a3']);
  });

  it('drops a waiting task whose signal aborts, and keeps the order of the rest', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, maxQueued: 5, maxPendingPerSender: 6 });
    const tasks = new FakeTasks();
    const gone = new AbortController();
    const first = tasks.submit(scheduler, 'a', 'a1');
    const cancelled = tasks.submit(scheduler, 'b', 'b1', gone.signal);
    const last = tasks.submit(scheduler, 'c', 'c1');
    await flush();
    gone.abort();
    await expect(cancelled).rejects.toBeInstanceOf(WaitCancelledError);
    expect(scheduler.queued).toBe(1);
    await tasks.finish('a1');
    await tasks.finish('c1');
    expect(await Promise.all([first, last])).toEqual(['a1', 'c1']);
    expect(tasks.started).toEqual(['a1', 'c1']);
    // An already aborted signal never queues, and aborting a running task's signal does not stop it.
    await expect(tasks.submit(scheduler, 'a', 'x', AbortSignal.abort())).rejects.toBeInstanceOf(WaitCancelledError);
    const late = new AbortController();
    const running = tasks.submit(scheduler, 'a', 'a2', late.signal);
    await flush();
    late.abort();
    await tasks.finish('a2');
    expect(await running).toBe('a2');
  });

  it('frees the slot when a task fails', async () => {
    const scheduler = new FairScheduler({ concurrency: 1, maxQueued: 1 });
    await expect(scheduler.run('a', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await scheduler.run('a', async () => 'next')).toBe('next');
    expect(scheduler.active).toBe(0);
  });

  it('tells a running task whether its sender has more waiting, as that changes', async () => {
    const scheduler = new FairScheduler({ concurrency: 2, maxQueued: 10 });
    const seen: boolean[] = [];
    let finishA1 = () => {};
    const a1 = scheduler.run(
      'a',
      (slot) =>
        new Promise<void>((resolve) => {
          seen.push(slot.senderHasBacklog());
          finishA1 = () => {
            seen.push(slot.senderHasBacklog());
            resolve();
          };
        }),
    );
    await flush();
    // A second task from the same sender waits (one sender holds at most one of two slots).
    const a2 = scheduler.run('a', async (slot) => seen.push(slot.senderHasBacklog()));
    const b1 = scheduler.run('b', async (slot) => seen.push(slot.senderHasBacklog()));
    await flush();
    finishA1();
    await Promise.all([a1, a2, b1]);
    // a1 starts alone; b1 runs beside it; a1 ends while a2 waits (backlog); a2 runs with none waiting.
    expect(seen).toEqual([false, false, true, false]);
  });
});
