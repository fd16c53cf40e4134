/**
 * The job runner: polls for due jobs, runs their handlers with a lease, retries with the
 * handler's backoff, and runs periodic tasks. It runs inside the server by default and alone
 * with `npm run worker`; several runners (processes) can share one PostgreSQL database.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { SpanStatusCode, trace } from '@opentelemetry/api';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { randomToken } from '../lib/ids.js';
import type { JobsWakeup } from './wakeup.js';
import { type JobHandler, MalformedJobPayloadError } from './define.js';
import { claimDueJobs, completeJob, failJob, type JobRow, rescheduleJob } from './repo.js';

const tracer = trace.getTracer('voicename.jobs');
export interface PeriodicTask {
  name: string;
  everyMs: number;
  /** Also run when this process commits new work (e.g. deliveries made due by re-enabling a webhook). */
  onWakeup?: boolean;
  run(): Promise<void>;
  /** Called by `stop()` once the last run has ended: work the task left under way ends here (e.g. unrecorded sends). */
  stop?(): Promise<void>;
}

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  jobs: JobHandler[];
  periodic?: PeriodicTask[];
  pollMs?: number;
  batchSize?: number;
  /** Poll at once when this process commits new jobs. */
  wakeup?: JobsWakeup;
}

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomToken(4)}`;
  private readonly byName: Map<string, JobHandler>;
  private running = false;
  private timers: NodeJS.Timeout[] = [];
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** A nudge that arrived while a poll was running: poll again instead of sleeping. */
  private nudged = false;
  private unsubscribe: (() => void) | undefined;
  /** Periodic task runs under way (delivery passes among them): `stop()` waits for them. */
  private readonly tasksInFlight = new Set<Promise<void>>();

  constructor(private readonly options: WorkerOptions) {
    this.byName = new Map(options.jobs.map((handler) => [handler.job.name, handler]));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pollLoop();
    this.unsubscribe = this.options.wakeup?.subscribe(() => {
      this.nudge();
      for (const task of this.options.periodic ?? []) if (task.onWakeup) this.runTask(task);
    });
    for (const task of this.options.periodic ?? []) {
      const timer = setInterval(() => this.runTask(task), task.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  private runTask(task: PeriodicTask): void {
    if (!this.running) return;
    const run: Promise<void> = task
      .run()
      .catch((err) => this.options.logger.error({ err, task: task.name }, 'periodic task failed'))
      .finally(() => this.tasksInFlight.delete(run));
    this.tasksInFlight.add(run);
  }

  /** Ask the loop to poll now (called after enqueueing in this process, to cut latency). */
  nudge(): void {
    this.nudged = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    this.wake?.();
    await this.loop;
    // A delivery pass that sent a request must record its outcome before the process exits,
    // or the receiver gets the same delivery again from the next worker.
    await Promise.allSettled([...this.tasksInFlight]);
    await Promise.allSettled((this.options.periodic ?? []).map((task) => task.stop?.()));
  }

  /** Runs every due job once; returns how many ran. Tests call this directly with a manual clock. */
  async runDue(): Promise<number> {
    // Each batch starts on a new turn of the loop: jobs whose work is all synchronous underneath
    // (SQLite, lookups in memory) would otherwise run batch after batch as one chain of
    // microtasks, and a backlog of them (10,000 events of an import) would hold the loop for seconds.
    await nextTurn();
    const { db, clock } = this.options;
    const now = clock.now();
    const maxLease = Math.max(...[...this.byName.values()].map(({ job }) => job.leaseMs ?? 60_000), 1_000);
    const claimed = await claimDueJobs(db.kysely, db.dialect, {
      workerId: this.id,
      now,
      leaseUntil: new Date(now.getTime() + maxLease),
      limit: this.options.batchSize ?? 10,
      names: [...this.byName.keys()],
    });
    await Promise.all(claimed.map((row) => this.runOne(row)));
    return claimed.length;
  }

  /** Runs one claimed job and records its outcome; never throws, so one job cannot stop the others. */
  private async runOne(row: JobRow): Promise<void> {
    const { db, clock, logger } = this.options;
    const handler = this.byName.get(row.name);
    if (!handler) return;
    const { job } = handler;
    const log = { job: row.name, jobId: row.id, attempt: row.attempts };
    try {
      try {
        // A span per job (a no-op unless tracing is on): its outbound calls become its children.
        await tracer.startActiveSpan(
          `job ${row.name}`,
          { attributes: { 'job.id': row.id, 'job.attempt': row.attempts } },
          async (span) => {
            try {
              await handler.run(row.payload, { attempt: row.attempts, jobId: row.id });
            } catch (err) {
              span.recordException(err as Error);
              span.setStatus({ code: SpanStatusCode.ERROR });
              throw err;
            } finally {
              span.end();
            }
          },
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof MalformedJobPayloadError) {
          // Another attempt would read the same bytes: fail now, visibly.
          logger.error({ ...log, err }, 'job payload is malformed; job failed');
          await failJob(db.kysely, row.id, this.id, clock.now(), message);
        } else if (row.attempts >= job.maxAttempts) {
          logger.error({ ...log, err }, 'job failed for good');
          await failJob(db.kysely, row.id, this.id, clock.now(), message);
        } else {
          logger.warn({ ...log, err }, 'job failed; will retry');
          const runAt = new Date(clock.now().getTime() + job.backoff(row.attempts));
          await rescheduleJob(db.kysely, row.id, this.id, runAt, message);
        }
        return;
      }
      await completeJob(db.kysely, row.id, this.id);
    } catch (err) {
      // The outcome could not be written; the lease runs out and the job is claimed again.
      logger.error({ ...log, err }, 'recording a job outcome failed');
    }
  }

  private async pollLoop(): Promise<void> {
    const pollMs = this.options.pollMs ?? 500;
    while (this.running) {
      let ran = 0;
      this.nudged = false;
      try {
        ran = await this.runDue();
      } catch (err) {
        this.options.logger.error({ err }, 'job poll failed');
      }
      if (ran > 0 || this.nudged || !this.running) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}
