// Worker thread that keeps SQLite's write-ahead log short (see sqlite-checkpoint.ts). Plain
// JavaScript so it runs the same under tsx, vitest and the compiled build. Its own connection
// runs PASSIVE checkpoints, which never block the server's readers or writer, so the server's
// event loop (almost) never copies the log itself.
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';

const database = new SQLite(workerData.file);
database.pragma('busy_timeout = 1000');
// Like the server's connection (db/index.ts): what this one frees is overwritten, never left readable.
database.pragma('secure_delete = ON');
const checkpoint = () => {
  try {
    database.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  checkpoint();
  database.close();
  parentPort.close();
});
