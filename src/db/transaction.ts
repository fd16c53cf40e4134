/**
 * One way to run a transaction with work that must wait for its commit.
 *
 *   await withTransaction(deps, async (tx) => {
 *     await insertSomething(tx.trx, row);
 *     tx.afterCommit(() => invalidateSomeCache(deps));
 *     await enqueue(tx, someJob, payload); // also wakes this process's worker after the commit
 *   });
 *
 * Effects run only after a successful commit, one after the other in the order they were
 * registered, before `withTransaction` returns; after a rollback none runs. Typical effects drop
 * per-process caches, delete files the committed rows no longer reference, and wake the job
 * worker. The data is committed by then, so an effect that throws is logged and skipped: the
 * caller still gets its result, never an error for a change that happened.
 */
import type { Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../lib/clock.js';
import type { Db } from './index.js';
import type { Database } from './schema.js';

export type AfterCommitEffect = () => void | Promise<void>;

export interface TransactionDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  /** This process's job worker: told after a commit that enqueued jobs, so it polls at once. */
  jobsWakeup: { notify(): void };
}

export interface TransactionScope {
  /** Pass to repos: every query on it is part of the transaction. */
  readonly trx: Transaction<Database>;
  /** Queues `effect` to run after the commit (never after a rollback). */
  afterCommit(effect: AfterCommitEffect): void;
  /** Wakes this process's job worker after the commit; `enqueue` calls it, any number of times. */
  wakeWorkerAfterCommit(): void;
  /** The service's clock: the default time at which jobs enqueued here become due. */
  readonly clock: Clock;
}

export async function withTransaction<T>(deps: TransactionDeps, fn: (tx: TransactionScope) => Promise<T>): Promise<T> {
  const effects: AfterCommitEffect[] = [];
  const result = await deps.db.kysely.transaction().execute((trx) => {
    let wakesWorker = false;
    return fn({
      trx,
      clock: deps.clock,
      afterCommit: (effect) => void effects.push(effect),
      wakeWorkerAfterCommit: () => {
        if (wakesWorker) return;
        wakesWorker = true;
        effects.push(() => deps.jobsWakeup.notify());
      },
    });
  });
  for (const effect of effects) {
    try {
      await effect();
    } catch (err) {
      deps.logger.error({ err }, 'an after-commit effect failed; the transaction is committed');
    }
  }
  return result;
}
