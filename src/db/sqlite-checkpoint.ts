/**
 * SQLite copies its write-ahead log back into the database file every 1,000 pages, inside
 * whichever write crossed the mark, and better-sqlite3 runs that write on the event loop: a
 * checkpoint held every request (measured during a play-count flush: docs/performance.md). Here a worker
 * thread with its own connection checkpoints every `intervalMs` without blocking anyone
 * (PASSIVE); whenever one completes between writes, the next write starts the log afresh. The
 * server's connection keeps an automatic checkpoint only as a safety net at 100,000 pages (about
 * 400 MB), for write storms with no quiet moment (a lower net fired during a 100,000-link
 * play-count flush and stalled it); if the worker dies, the default comes back.
 * The worker starts when the log first reaches 1 MiB (checked every `intervalMs` with a `stat`),
 * not at open: an idle or read-mostly server never starts it.
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

const WORKER_URL = new URL('./sqlite-checkpointer.mjs', import.meta.url);
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const SAFETY_NET_PAGES = 100_000;
/** 1 MiB of log (256 pages of 4 KiB), a quarter of what SQLite's own default lets grow. */
const START_AT_BYTES = 1024 * 1024;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startBackgroundCheckpoints(
  database: SQLite.Database,
  file: string,
  intervalMs = 250,
  startAtBytes = START_AT_BYTES,
): Checkpointer {
  database.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  const fallBack = () => database.open && database.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  let worker: Worker | null = null;
  let stopping = false;
  let exited = false;
  let exit: Promise<void> = Promise.resolve();
  const start = () => {
    const started = new Worker(WORKER_URL, { workerData: { file, intervalMs } });
    // Never what keeps a process alive: a CLI command or a test ends when its own work ends.
    started.unref();
    started.on('error', fallBack);
    exit = new Promise<void>((resolve) =>
      started.once('exit', () => {
        exited = true;
        if (!stopping) fallBack();
        resolve();
      }),
    );
    worker = started;
  };
  // The worker (a thread with its own V8 heap and connection) starts
  // once the log has grown past `startAtBytes`, so an idle server never pays for it.
  const watch = setInterval(() => {
    if ((fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0) < startAtBytes) return;
    clearInterval(watch);
    if (!stopping) start();
  }, intervalMs);
  watch.unref();
  return {
    async stop() {
      clearInterval(watch);
      if (stopping || exited || !worker) return;
      stopping = true;
      // Until it has checkpointed and closed its connection, the worker must keep this process
      // alive: an unreferenced worker's exit would never be waited for.
      const running: Worker = worker;
      running.ref();
      running.postMessage('stop');
      const timer = setTimeout(() => void running.terminate(), 2_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
