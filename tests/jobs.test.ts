import pino from 'pino';
import { type Static, type TSchema, Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../src/db/transaction.js';
import { defineJob, handleJob, type JobHandler, type JobType } from '../src/jobs/define.js';
import { enqueue } from '../src/jobs/queue.js';
import { claimDueJobs } from '../src/jobs/repo.js';
import { JobsWakeup } from '../src/jobs/wakeup.js';
import { JobWorker } from '../src/jobs/worker.js';
import { type Clock, ManualClock, systemClock } from '../src/lib/clock.js';
import { newId } from '../src/lib/ids.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { within } from './helpers/within.js';

let database: TestDatabase;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.drop());

function worker(clock: ManualClock, jobs: JobHandler[], log = logger) {
  return new JobWorker({ db: database.db, clock, logger: log, jobs });
}

const emptyPayload = Type.Object({});

/** Enqueues one job in its own transaction, due now by `clock`, as a service would. */
function enqueueNow<Payload extends TSchema>(
  clock: Clock,
  job: JobType<Payload>,
  payload: Static<Payload>,
  jobsWakeup = new JobsWakeup(),
): Promise<string> {
  return withTransaction({ db: database.db, clock, logger, jobsWakeup }, (tx) => enqueue(tx, job, payload));
}

describe('job queue', () => {
  it('retries a failing job on its backoff and deletes it once it succeeds', async () => {
    const clock = new ManualClock('2026-01-01T00:00:00.000Z');
    const attempts: number[] = [];
    const flaky = defineJob({
      name: 'test.flaky',
      payload: Type.Object({ n: Type.Number() }),
      maxAttempts: 5,
      backoff: (attempt) => attempt * 1000,
    });
    const w = worker(clock, [
      handleJob(flaky, async (payload, { attempt }) => {
        attempts.push(attempt);
        expect(payload).toEqual({ n: 1 });
        if (attempt < 3) throw new Error(`fail ${attempt}`);
      }),
    ]);
    const id = await enqueueNow(clock, flaky, { n: 1 });
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
    const doomed = defineJob({ name: 'test.doomed', payload: emptyPayload, maxAttempts: 2, backoff: () => 10 });
    const w = worker(clock, [
      handleJob(doomed, async () => {
        throw new Error('nope');
      }),
    ]);
    const id = await enqueueNow(clock, doomed, {});
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
    const lease = defineJob({ name: 'test.lease', payload: emptyPayload, maxAttempts: 3, backoff: () => 0, leaseMs: 5_000 });
    await enqueueNow(clock, lease, {});
    // A worker claims it and "dies": simulate by claiming without running.
    const claimed = await claimDueJobs(database.db.kysely, database.db.dialect, {
      workerId: 'dead',
      now: clock.now(),
      leaseUntil: new Date(clock.now().getTime() + 5_000),
      limit: 10,
      names: ['test.lease'],
    });
    expect(claimed).toHaveLength(1);
    const w = worker(clock, [handleJob(lease, async () => void runs++)]);
    expect(await w.runDue()).toBe(0);
    clock.advance(5_001);
    expect(await w.runDue()).toBe(1);
    expect(runs).toBe(1);
  });

  it('never hands one job to two concurrent claimers', async () => {
    const clock = new ManualClock();
    const seen: string[] = [];
    const concurrent = defineJob({
      name: 'test.concurrent',
      payload: Type.Object({ i: Type.Integer() }),
      maxAttempts: 1,
      backoff: () => 0,
    });
    const handler = handleJob(concurrent, async (payload) => {
      seen.push(String(payload.i));
      // Hold the job across a turn of the event loop, so the other workers claim meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
    });
    for (let i = 0; i < 60; i++) await enqueueNow(clock, concurrent, { i });
    const workers = [worker(clock, [handler]), worker(clock, [handler]), worker(clock, [handler])];
    for (let round = 0; round < 10; round++) await Promise.all(workers.map((w) => w.runDue()));
    expect(seen.sort()).toEqual(Array.from({ length: 60 }, (_, i) => String(i)).sort());
  });

  it('runs a job committed in this process at once (enqueue wakes the worker), without waiting for the poll', async () => {
    const wakeup = new JobsWakeup();
    let ran = 0;
    const woken = defineJob({ name: 'test.woken', payload: emptyPayload, maxAttempts: 1, backoff: () => 0 });
    // Counts the worker's finished claim queries, so the test knows its first poll came back empty.
    let claims = 0;
    const counted = database.db.kysely.withPlugin({
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        claims++;
        return result;
      },
    });
    const w = new JobWorker({
      db: { ...database.db, kysely: counted },
      clock: systemClock,
      logger,
      wakeup,
      pollMs: 60_000,
      jobs: [handleJob(woken, async () => void ran++)],
    });
    w.start();
    try {
      await within(5_000, async () => claims >= 1);
      await enqueueNow(systemClock, woken, {}, wakeup);
      await within(1_000, async () => ran === 1); // the poll would take a minute
    } finally {
      await w.stop();
    }
  });

  it('stop() waits for a periodic pass under way (a delivery pass records what it sent before the process exits)', async () => {
    const outcomes: string[] = [];
    let started!: () => void;
    const passStarted = new Promise<void>((resolve) => (started = resolve));
    let finish!: () => void;
    const passMayFinish = new Promise<void>((resolve) => (finish = resolve));
    const w = new JobWorker({
      db: database.db,
      clock: systemClock,
      logger,
      pollMs: 60_000,
      jobs: [],
      periodic: [
        {
          name: 'test.slow-pass',
          everyMs: 10,
          async run() {
            started();
            await passMayFinish;
            outcomes.push('recorded');
          },
        },
      ],
    });
    w.start();
    await passStarted;
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(outcomes).toEqual(['recorded']);
    // Stopped means stopped: no pass starts afterwards. Real time on purpose: five of its 10 ms periods.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(outcomes).toEqual(['recorded']);
  });

  it('fails jobs whose stored payload is malformed at once, logs them, and still runs the good ones of the batch', async () => {
    const clock = new ManualClock();
    const greet = defineJob({
      name: 'test.greet',
      payload: Type.Object({ name: Type.String({ minLength: 1 }) }),
      maxAttempts: 5,
      backoff: () => 1_000,
    });
    const greeted: string[] = [];
    const lines: { level: number; msg: string; jobId?: string }[] = [];
    const capture = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const w = worker(clock, [handleJob(greet, async (payload) => void greeted.push(payload.name))], capture);

    const at = clock.now().toISOString();
    const stored = (payload: string) => ({ id: newId(), name: greet.name, payload, run_at: at, created_at: at });
    const notJson = stored('{"name": "Ada"');
    const wrongShape = stored('{"name": 42}');
    await database.db.kysely.insertInto('jobs').values([notJson, wrongShape]).execute();
    const good = await enqueueNow(clock, greet, { name: 'Grace' });

    expect(await w.runDue()).toBe(3);
    expect(greeted).toEqual(['Grace']);
    expect(await database.db.kysely.selectFrom('jobs').selectAll().where('id', '=', good).executeTakeFirst()).toBeUndefined();
    const failed = await database.db.kysely
      .selectFrom('jobs')
      .selectAll()
      .where('id', 'in', [notJson.id, wrongShape.id])
      .execute();
    const byId = new Map(failed.map((row) => [row.id, row]));
    expect(byId.get(notJson.id)).toMatchObject({ attempts: 1, locked_by: null });
    expect(byId.get(notJson.id)?.failed_at).not.toBeNull();
    expect(byId.get(notJson.id)?.last_error).toMatch(/^payload of test\.greet is not JSON/);
    expect(byId.get(wrongShape.id)?.failed_at).not.toBeNull();
    expect(byId.get(wrongShape.id)?.last_error).toMatch(
      /^payload of test\.greet does not match its schema: \/name must be string/,
    );
    const errors = lines.filter((line) => line.level === 50);
    expect(errors.map((line) => line.jobId).sort()).toEqual([notJson.id, wrongShape.id].sort());

    // Failed for good: never claimed again, and the worker goes on with new work.
    clock.advance(1_000_000);
    await enqueueNow(clock, greet, { name: 'Hedy' });
    expect(await w.runDue()).toBe(1);
    expect(greeted).toEqual(['Grace', 'Hedy']);
  });

  it('type-checks payloads against the job schema when enqueueing', async () => {
    const typed = defineJob({
      name: 'test.typed',
      payload: Type.Object({ user_id: Type.String() }),
      maxAttempts: 1,
      backoff: () => 0,
    });
    const deps = { db: database.db, clock: new ManualClock(), logger, jobsWakeup: new JobsWakeup() };
    const rolledBack = withTransaction(deps, async (tx) => {
      await enqueue(tx, typed, { user_id: 'u1' });
      // @ts-expect-error user_id must be a string
      await enqueue(tx, typed, { user_id: 1 });
      // @ts-expect-error user_id is required
      await enqueue(tx, typed, {});
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await database.db.kysely.selectFrom('jobs').selectAll().where('name', '=', typed.name).execute()).toEqual([]);
  });
});
