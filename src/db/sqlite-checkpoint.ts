/**
 * SQLite copies its write-ahead log back into the database file every 1,000 pages, inside
 * whichever write crossed the mark, and better-sqlite3 runs that write on the event loop: a
 * checkpoint held every request for 30-50 ms (measured during a play-count flush). Here a worker
 * thread with its own connection checkpoints every `intervalMs` without blocking anyone
 * (PASSIVE); whenever one completes between writes, the next write starts the log afresh. The
 * server's connection keeps an automatic checkpoint only as a safety net at 100,000 pages (about
 * 400 MB), for write storms with no quiet moment (a lower net fired during a 100,000-link
 * play-count flush and stalled it for 30-70 ms); if the worker dies, the default comes back.
 */
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

const WORKER_URL = new URL('./sqlite-checkpointer.mjs', import.meta.url);
const DEFAULT_AUTOCHECKPOINT_PAGES = 1000;
const SAFETY_NET_PAGES = 100_000;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startBackgroundCheckpoints(database: SQLite.Database, file: string, intervalMs = 250): Checkpointer {
  database.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
  const fallBack = () => database.open && database.pragma(`wal_autocheckpoint = ${DEFAULT_AUTOCHECKPOINT_PAGES}`);
  const worker = new Worker(WORKER_URL, { workerData: { file, intervalMs } });
  worker.unref();
  let stopping = false;
  worker.on('error', fallBack);
  worker.on('exit', () => {
    if (!stopping) fallBack();
  });
  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      await worker.terminate();
    },
  };
}
