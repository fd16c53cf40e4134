/**
 * The signal that jobs were just committed. `enqueue` has it notified after the commit of the
 * transaction that enqueued work (src/db/transaction.ts); this process's worker then polls at
 * once instead of at its next interval, and so do the workers of other processes when the
 * database carries notifications (PostgreSQL LISTEN/NOTIFY, src/db/notifications.ts).
 * Polling stays the fallback: a lost signal only costs latency.
 */
import type { Notifications } from '../db/notifications.js';

export class JobsWakeup {
  private readonly listeners = new Set<() => void>();

  constructor(private readonly notifications?: Notifications) {
    notifications?.subscribe('jobs', () => this.wakeListeners());
    notifications?.onGap(() => this.wakeListeners());
  }

  notify(): void {
    if (this.notifications) this.notifications.publish('jobs', '');
    else this.wakeListeners();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private wakeListeners(): void {
    for (const listener of this.listeners) listener();
  }
}
