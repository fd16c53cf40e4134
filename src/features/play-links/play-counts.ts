/**
 * Play counts: counted in memory per play, written to the database every PLAY_COUNT_FLUSH_MS and
 * at shutdown, never a database write per play.
 *
 * What a flush costs is the pages it writes, not the rows. With random tokens a statement of 250
 * rows touched ~250 different pages of `play_links`, and each statement, committed on its own,
 * wrote them all to SQLite's log again: a 100,000-link flush wrote hundreds of MB (and on
 * PostgreSQL waited for 400 fsyncs). So on SQLite the flush first reads where the rows are (their
 * row ids; reads write nothing), then writes them in row-id order, `PLAY_COUNT_BATCH` rows per
 * statement: a statement touches neighbouring pages and every page is written about once per
 * flush. On PostgreSQL it writes `PLAY_COUNT_BATCH` tokens per statement (fewer commits).
 * Every statement commits on its own (no transaction is held while other requests run: on SQLite
 * they share the connection) and the event loop gets a turn between statements.
 */
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import type { Deps } from '../../deps.js';
import { batchPlayCounts, type ResolvedPlayLink } from './cache.js';
import { addPlayCounts, addPlayCountsByRowId, findMaxPlayLinkRowId, findPlayLinkRowIds } from './repo.js';

/** Rows per statement: a few ms of synchronous work on SQLite, so no flush stalls requests. */
export const PLAY_COUNT_BATCH = 2000;

/** Row-id ranges the SQLite flush sorts its rows in: at most this many, whatever the table's size. */
const ROW_ID_RANGES = 4096;

interface PendingRow {
  rowId: number;
  token: string;
  plays: number;
}

/** Counts one play in memory (no database write; see `flushPlayCounts`). */
export function recordPlay(deps: Deps, token: string): void {
  deps.playLinks.counter.add(token);
}

/** Plays of a link: stored count plus this process's plays not yet flushed. */
export const playCountOf = (deps: Deps, link: ResolvedPlayLink): number =>
  link.storedPlayCount + deps.playLinks.counter.pendingFor(link.token);

/**
 * Writes pending play counts (see the top of this file). If a statement fails, its counts and
 * those not yet written go back into memory for the next flush: nothing is lost and nothing is
 * counted twice. Returns the plays written.
 */
export async function flushPlayCounts(deps: Deps): Promise<number> {
  const pending = deps.playLinks.counter.take();
  if (pending.size === 0) return 0;
  return deps.db.dialect === 'sqlite' ? flushInRowIdOrder(deps, pending) : flushByPlays(deps, pending);
}

/** PostgreSQL: one statement per batch of tokens with the same number of plays (`batchPlayCounts`). */
async function flushByPlays(deps: Deps, pending: Map<string, number>): Promise<number> {
  const { counter, cache } = deps.playLinks;
  const batches = batchPlayCounts(pending, PLAY_COUNT_BATCH);
  let written = 0;
  for (const { plays, tokens } of batches) {
    try {
      await addPlayCounts(deps.db.kysely, deps.db.dialect, tokens, plays);
    } catch (err) {
      // This batch and every count the generator has not handed out yet go back.
      for (const token of tokens) counter.add(token, plays);
      for (const rest of batches) for (const token of rest.tokens) counter.add(token, rest.plays);
      throw err;
    }
    cache.noteFlushed(tokens, plays);
    written += plays * tokens.length;
    await setImmediatePromise();
  }
  return written;
}

/** SQLite: finds the rows' ids, then writes them range by range in row-id order. */
async function flushInRowIdOrder(deps: Deps, pending: Map<string, number>): Promise<number> {
  const { counter, cache } = deps.playLinks;
  let ranges: PendingRow[][];
  try {
    ranges = await locateRows(deps, pending);
  } catch (err) {
    counter.restore(pending); // nothing was written yet
    throw err;
  }
  let written = 0;
  let statement: PendingRow[] = [];
  const write = async (): Promise<void> => {
    await addPlayCountsByRowId(deps.db.kysely, statement);
    const tokens = statement.map((row) => row.token);
    cache.noteFlushed(
      tokens,
      statement.map((row) => row.plays),
    );
    for (const row of statement) written += row.plays;
    statement = [];
    await setImmediatePromise();
  };
  for (let index = 0; index < ranges.length; index++) {
    const range = ranges[index];
    if (!range) continue;
    range.sort((a, b) => a.rowId - b.rowId);
    for (const row of range) {
      statement.push(row);
      if (statement.length < PLAY_COUNT_BATCH) continue;
      try {
        await write();
      } catch (err) {
        giveBack(deps, statement, ranges, index, row);
        throw err;
      }
    }
  }
  if (statement.length > 0) {
    try {
      await write();
    } catch (err) {
      giveBack(deps, statement, ranges, ranges.length, undefined);
      throw err;
    }
  }
  return written;
}

/**
 * The pending rows grouped by row-id range (in order; a range's rows unsorted). Tokens without a
 * row (links deleted since they were played) are dropped, as an UPDATE of them would.
 */
async function locateRows(deps: Deps, pending: Map<string, number>): Promise<PendingRow[][]> {
  const db = deps.db.kysely;
  const rangeWidth = Math.max(1024, Math.ceil((await findMaxPlayLinkRowId(db)) / ROW_ID_RANGES));
  const ranges: PendingRow[][] = [];
  const tokens = [...pending.keys()];
  for (let start = 0; start < tokens.length; start += PLAY_COUNT_BATCH) {
    for (const { row_id, token } of await findPlayLinkRowIds(db, tokens.slice(start, start + PLAY_COUNT_BATCH))) {
      const rowId = Number(row_id);
      (ranges[Math.floor(rowId / rangeWidth)] ??= []).push({ rowId, token, plays: pending.get(token) ?? 0 });
    }
    await setImmediatePromise();
  }
  return ranges;
}

/**
 * After a failed statement: its rows, and every row after `failedAt` in `ranges[index]` and in
 * the ranges after it, go back into memory.
 */
function giveBack(
  deps: Deps,
  statement: PendingRow[],
  ranges: PendingRow[][],
  index: number,
  failedAt: PendingRow | undefined,
): void {
  const { counter } = deps.playLinks;
  for (const row of statement) counter.add(row.token, row.plays);
  const current = ranges[index];
  if (current && failedAt) for (const row of current.slice(current.indexOf(failedAt) + 1)) counter.add(row.token, row.plays);
  for (const range of ranges.slice(index + 1)) for (const row of range ?? []) counter.add(row.token, row.plays);
}
