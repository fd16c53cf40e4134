/**
 * The job runner: polls for due jobs, runs their handlers with a lease, retries with the
 * handler's backoff, and runs periodic tasks. It runs inside the server by default and alone
 * with `npm run worker`; several runners (processes) can share one PostgreSQL database.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Db } from '../db/index.js';
import type { Clock } from '../lib/clock.js';
import { randomToken } from '../lib/ids.js';
import type { JobsWakeup } from './wakeup.js';
import { claimDueJobs, completeJob, failJob, type JobRow, rescheduleJob } from './queue.js';

export interface JobDefinition<P = unknown> {
  name: string;
  /** Attempts before the job is marked failed (kept in the table for inspection). */
  maxAttempts: number;
  /** Delay before attempt `attempt + 1`, after `attempt` failed (1-based). */
  backoffMs(attempt: number): number;
  /** How long one attempt may hold its lease before another worker may take the job over. */
  leaseMs?: number;
  handle(payload: P, context: { attempt: number; jobId: string }): Promise<void>;
}

export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(): Promise<void>;
}

export interface WorkerOptions {
  db: Db;
  clock: Clock;
  logger: Logger;
  jobs: JobDefinition<any>[];
  periodic?: PeriodicTask[];
  pollMs?: number;
  batchSize?: number;
  /** Poll at once when this process commits new jobs. */
  wakeup?: JobsWakeup;
}

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomToken(4)}`;
  private readonly byName: Map<string, JobDefinition<any>>;
  private running = false;
  private timers: NodeJS.Timeout[] = [];
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** A nudge that arrived while a poll was running: poll again instead of sleeping. */
  private nudged = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly options: WorkerOptions) {
    this.byName = new Map(options.jobs.map((job) => [job.name, job]));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.pollLoop();
    this.unsubscribe = this.options.wakeup?.subscribe(() => this.nudge());
    for (const task of this.options.periodic ?? []) {
      const timer = setInterval(() => {
        task.run().catch((err) => this.options.logger.error({ err, task: task.name }, 'periodic task failed'));
      }, task.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
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
  }

  /** Runs every due job once; returns how many ran. Tests call this directly with a manual clock. */
  async runDue(): Promise<number> {
    const { db, clock } = this.options;
    const now = clock.now();
    const maxLease = Math.max(...[...this.byName.values()].map((job) => job.leaseMs ?? 60_000), 1_000);
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

  private async runOne(row: JobRow): Promise<void> {
    const { db, clock, logger } = this.options;
    const job = this.byName.get(row.name);
    if (!job) return;
    try {
      await job.handle(JSON.parse(row.payload), { attempt: row.attempts, jobId: row.id });
      await completeJob(db.kysely, row.id, this.id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (row.attempts >= job.maxAttempts) {
        logger.error({ err, job: row.name, jobId: row.id, attempt: row.attempts }, 'job failed for good');
        await failJob(db.kysely, row.id, this.id, clock.now(), message);
      } else {
        logger.warn({ err, job: row.name, jobId: row.id, attempt: row.attempts }, 'job failed; will retry');
        await rescheduleJob(db.kysely, row.id, this.id, new Date(clock.now().getTime() + job.backoffMs(row.attempts)), message);
      }
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
