import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../src/jobs/queue.js';
import { type JobDefinition, JobWorker } from '../src/jobs/worker.js';
import { JobsWakeup } from '../src/jobs/wakeup.js';
import { ManualClock, systemClock } from '../src/lib/clock.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

let database: TestDatabase;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

function worker(clock: ManualClock, jobs: JobDefinition<any>[]) {
  return new JobWorker({ db: database.db, clock, logger, jobs });
}

describe('job queue', () => {
  it('retries a failing job on its backoff and deletes it once it succeeds', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const attempts: number[] = [];
    const job: JobDefinition<{ n: number }> = {
      name: 'test.flaky',
      maxAttempts: 5,
      backoffMs: (attempt) => attempt * 1000,
      async handle(payload, { attempt }) {
        attempts.push(attempt);
        expect(payload).toEqual({ n: 1 });
        if (attempt < 3) throw new Error(`fail ${attempt}`);
      },
    };
    const w = worker(clock, [job]);
    const id = await enqueueJob(database.db.kysely, { name: 'test.flaky', payload: { n: 1 }, runAt: clock.now() });
    expect(await w.runDue()).toBe(1);
    expect(await w.runDue()).toBe(0); // not due for 1 s
    clock.advance(999);
    expect(await w.runDue()).toBe(0);
    clock.advance(1);
    expect(await w.runDue()).toBe(1);
    const row = await database.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.last_error).toBe('fail 2');
    clock.advance(2000);
    expect(await w.runDue()).toBe(1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(await database.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('marks a job failed after its last attempt and keeps the row', async () => {
    const clock = new ManualClock();
    const w = worker(clock, [
      {
        name: 'test.doomed',
        maxAttempts: 2,
        backoffMs: () => 10,
        handle: async () => {
          throw new Error('nope');
        },
      },
    ]);
    const id = await enqueueJob(database.db.kysely, { name: 'test.doomed', payload: {}, runAt: clock.now() });
    await w.runDue();
    clock.advance(10);
    await w.runDue();
    clock.advance(1_000_000);
    expect(await w.runDue()).toBe(0);
    const row = await database.db.kysely.selectFrom('jobs').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ attempts: 2, last_error: 'nope', locked_by: null });
    expect(row.failed_at).not.toBeNull();
  });

  it('gives a job whose worker died to another worker once the lease runs out', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const def: JobDefinition = {
      name: 'test.lease',
      maxAttempts: 3,
      backoffMs: () => 0,
      leaseMs: 5_000,
      handle: async () => void runs++,
    };
    await enqueueJob(database.db.kysely, { name: 'test.lease', payload: {}, runAt: clock.now() });
    // A worker claims it and "dies": simulate by claiming without running.
    const { claimDueJobs } = await import('../src/jobs/queue.js');
    const claimed = await claimDueJobs(database.db.kysely, database.db.dialect, {
      workerId: 'dead',
      now: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + 5_000),
      limit: 10,
      names: ['test.lease'],
    });
    expect(claimed).toHaveLength(1);
    const w = worker(clock, [def]);
    expect(await w.runDue()).toBe(0);
    clock.advance(5_001);
    expect(await w.runDue()).toBe(1);
    expect(runs).toBe(1);
  });

  it('never hands one job to two concurrent claimers', async () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    const def: JobDefinition<{ i: number }> = {
      name: 'test.concurrent',
      maxAttempts: 1,
      backoffMs: () => 0,
      async handle(payload) {
        seen.push(String(payload.i));
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
    };
    for (let i = 0; i < 60; i++)
      await enqueueJob(database.db.kysely, { name: 'test.concurrent', payload: { i }, runAt: clock.now() });
    const workers = [worker(clock, [def]), worker(clock, [def]), worker(clock, [def])];
    for (let round = 0; round < 10; round++) await Promise.all(workers.map((w) => w.runDue()));
    expect(seen.sort()).toEqual(Array.from({ length: 60 }, (_, i) => String(i)).sort());
  });

  it('runs a job committed in this process at once when woken, without waiting for the poll', async () => {
    const wakeup = new JobsWakeup();
    let ran = 0;
    const w = new JobWorker({
      db: database.db,
      clock: systemClock,
      logger,
      wakeup,
      pollMs: 60_000,
      jobs: [{ name: 'test.woken', maxAttempts: 1, backoffMs: () => 0, handle: async () => void ran++ }],
    });
    w.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first, empty poll is done
      await enqueueJob(database.db.kysely, { name: 'test.woken', payload: {}, runAt: new Date() });
      const started = Date.now();
      wakeup.notify();
      while (ran === 0 && Date.now() - started < 2_000) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(ran).toBe(1);
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await w.stop();
    }
  });
});
