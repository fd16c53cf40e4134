/**
 * withTransaction: after-commit effects run once the data is committed, in the order they were
 * registered; none runs after a rollback; an effect that throws is logged and does not fail the
 * caller; enqueueing a job wakes this process's worker once, after the commit.
 */
import pino from 'pino';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../src/db/transaction.js';
import { defineJob } from '../src/jobs/define.js';
import { enqueue } from '../src/jobs/queue.js';
import { ManualClock } from '../src/lib/clock.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

const noted = defineJob({ name: 'test.noted', payload: Type.Object({ n: Type.Integer() }), maxAttempts: 1, backoff: () => 0 });

function setup() {
  const logged: { level: number; msg: string; err?: { message: string } }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  let wakeups = 0;
  const deps = { db: database.db, clock: new ManualClock(), logger, jobsWakeup: { notify: () => void wakeups++ } };
  return { deps, logged, wakeups: () => wakeups };
}

const jobIds = async (ids: string[]) =>
  (await database.db.kysely.selectFrom('jobs').select('id').where('id', 'in', ids).execute()).map((row) => row.id);

describe('withTransaction', () => {
  it('runs after-commit effects after the commit, in order, and returns the result', async () => {
    const { deps, wakeups } = setup();
    const seen: string[] = [];
    let id = '';
    const result = await withTransaction(deps, async (tx) => {
      tx.afterCommit(() => void seen.push('first'));
      id = await enqueue(tx, noted, { n: 1 });
      await enqueue(tx, noted, { n: 2 });
      tx.afterCommit(async () => {
        // Another connection's view: the row is committed by now.
        seen.push(`committed: ${(await jobIds([id])).length}`);
      });
      tx.afterCommit(() => void seen.push('last'));
      expect(seen).toEqual([]);
      return 'done';
    });
    expect(result).toBe('done');
    expect(seen).toEqual(['first', 'committed: 1', 'last']);
    expect(wakeups()).toBe(1); // two jobs, one wake-up
  });

  it('runs no effect and wakes no worker after a rollback', async () => {
    const { deps, wakeups } = setup();
    const seen: string[] = [];
    let id = '';
    const failing = withTransaction(deps, async (tx) => {
      tx.afterCommit(() => void seen.push('effect'));
      id = await enqueue(tx, noted, { n: 3 });
      throw new Error('changed my mind');
    });
    await expect(failing).rejects.toThrow('changed my mind');
    expect(seen).toEqual([]);
    expect(wakeups()).toBe(0);
    expect(await jobIds([id])).toEqual([]);
  });

  it('logs an effect that throws, runs the next ones, and does not fail the caller', async () => {
    const { deps, logged, wakeups } = setup();
    const seen: string[] = [];
    const result = await withTransaction(deps, async (tx) => {
      tx.afterCommit(() => {
        throw new Error('cache gone');
      });
      tx.afterCommit(async () => {
        throw new Error('blob store down');
      });
      tx.afterCommit(() => void seen.push('still runs'));
      await enqueue(tx, noted, { n: 4 });
      return 42;
    });
    expect(result).toBe(42);
    expect(seen).toEqual(['still runs']);
    expect(wakeups()).toBe(1);
    const errors = logged.filter((line) => line.level === 50);
    expect(errors.map((line) => line.err?.message)).toEqual(['cache gone', 'blob store down']);
  });
});
