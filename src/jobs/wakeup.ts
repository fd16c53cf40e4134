/**
 * A process-local signal that jobs were just committed. `enqueue` has it notified after the commit
 * of the transaction that enqueued work (src/db/transaction.ts); the in-process worker then polls
 * at once instead of at its next interval.
 * Workers in other processes still find the jobs by polling: this only cuts latency.
 */
export class JobsWakeup {
  private readonly listeners = new Set<() => void>();

  notify(): void {
    for (const listener of this.listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
