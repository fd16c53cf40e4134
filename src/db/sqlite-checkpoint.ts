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
  // Never what keeps a process alive: a CLI command or a test ends when its own work ends.
  worker.unref();
  let stopping = false;
  let exited = false;
  worker.on('error', fallBack);
  const exit = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      exited = true;
      if (!stopping) fallBack();
      resolve();
    }),
  );
  return {
    async stop() {
      if (stopping || exited) return;
      stopping = true;
      // Until it has checkpointed and closed its connection, the worker must keep this process
      // alive: an unreferenced worker's exit would never be waited for.
      worker.ref();
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
