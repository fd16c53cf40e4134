/**
 * SQLite's write-ahead log is checkpointed by a worker thread, not inside the server's writes:
 * the server's connection checkpoints only as a safety net, and the log still stays short.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDb } from '../src/db/index.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-wal-'));
const file = path.join(dir, 'wal.db');
const db = openDb({ dialect: 'sqlite', file });
afterAll(async () => {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('keeps the log short while the server connection leaves checkpoints to the worker', { timeout: 30_000 }, async () => {
  const autocheckpoint = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db.kysely);
  expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(100_000); // ~400 MB: only a safety net

  await sql`create table notes (id integer primary key, body text not null)`.execute(db.kysely);
  const body = 'x'.repeat(2000);
  let oneRound = 0;
  // Bursts of writes with quiet moments between them, as a server sees them.
  for (let round = 0; round < 12; round++) {
    for (let i = 0; i < 1000; i++) await sql`insert into notes (body) values (${body})`.execute(db.kysely);
    if (round === 0) oneRound = fs.statSync(`${file}-wal`).size;
    await new Promise((resolve) => setTimeout(resolve, 600)); // the worker checkpoints every 250 ms
  }
  await new Promise((resolve) => setTimeout(resolve, 600)); // real time on purpose: the worker's last checkpoint
  // Twelve rounds went through the log; a checkpointed log is reused from its start, so it stays
  // at about one round's size instead of twelve.
  expect(oneRound).toBeGreaterThan(2_000_000);
  expect(fs.statSync(`${file}-wal`).size).toBeLessThan(2 * oneRound);
  // And nothing is waiting to be copied back: a checkpoint now finds every frame done.
  const [state] = (await sql<{ log: number; checkpointed: number }>`pragma wal_checkpoint(PASSIVE)`.execute(db.kysely)).rows;
  expect(state?.log).toBe(state?.checkpointed);
});
