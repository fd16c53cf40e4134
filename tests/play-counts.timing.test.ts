/**
 * Play counts at scale: a long tail of links each played once (or counts piled up while the
 * database was down) must flush in linear time without stalling the event loop, and a failed
 * flush must lose and double-count nothing.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deps } from '../src/deps.js';
import { flushPlayCounts, PLAY_COUNT_BATCH } from '../src/features/play-links/play-counts.js';
import { randomToken } from '../src/lib/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { measureStalls } from './helpers/loop-stalls.js';
import { addUser, createCollection } from './helpers/play-link-fixtures.js';

const LINKS = 100_000;
const MAX_STALL_MS = 50;

let t: TestApp;
let tokens: string[];

beforeAll(async () => {
  t = await createTestApp();
  const { key } = await t.newAccount();
  const userId = await addUser(t, await createCollection(t, key));
  // Retired links of one user: real rows that an UPDATE must find and write, without needing
  // 100,000 users (only one link per user may be active).
  tokens = Array.from({ length: LINKS }, () => randomToken(22));
  const createdAt = new Date().toISOString();
  for (let i = 0; i < LINKS; i += 1000) {
    await t.deps.db.kysely
      .insertInto('play_links')
      .values(
        tokens
          .slice(i, i + 1000)
          .map((token) => ({ token, user_id: userId, status: 'retired', play_count: 0, created_at: createdAt })),
      )
      .execute();
  }
}, 120_000);
afterAll(() => t.close());

const totalStored = async () =>
  Number(
    (
      await t.deps.db.kysely
        .selectFrom('play_links')
        .select((eb) => eb.fn.sum<number | string>('play_count').as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/**
 * Runs `work` while sampling the event loop: its result and the longest stall the main thread
 * spent running (tests/helpers/loop-stalls.ts), so a busy shared machine does not count.
 */
async function withLoopDelay<T>(work: () => Promise<T>): Promise<{ result: T; maxStallMs: number }> {
  const { result, maxBusyStallMs } = await measureStalls(work);
  return { result, maxStallMs: maxBusyStallMs };
}

/** The same deps, with a database whose UPDATEs fail from the `failFrom`-th one on. */
function withFailingUpdates(deps: Deps, failFrom: number): Deps {
  let updates = 0;
  const kysely = new Proxy(deps.db.kysely, {
    get(target, property, receiver) {
      if (property !== 'updateTable') {
        const value: unknown = Reflect.get(target, property, receiver);
        // Kysely's methods read private fields: they must run on the real instance.
        return typeof value === 'function' ? value.bind(target) : value;
      }
      return (...args: Parameters<typeof target.updateTable>) => {
        if (++updates >= failFrom) throw new Error('database unavailable');
        return target.updateTable(...args);
      };
    },
  });
  return { ...deps, db: { ...deps.db, kysely } };
}

describe('flushing play counts of 100,000 links', () => {
  it('writes every play without an event-loop stall over 50 ms', { timeout: 120_000 }, async () => {
    for (const token of tokens) t.deps.playLinks.counter.add(token);
    for (const token of tokens.slice(0, 1000)) t.deps.playLinks.counter.add(token, 2);
    const { result, maxStallMs } = await withLoopDelay(() => flushPlayCounts(t.deps));
    expect(result).toBe(LINKS + 2000);
    expect(await totalStored()).toBe(LINKS + 2000);
    expect(maxStallMs).toBeLessThan(MAX_STALL_MS);
  });

  // SQLite writes whole pages: rows written in random order, a commit per 250 rows, rewrote each
  // page of the table hundreds of times (about 450 MB for this flush, the log's and the checkpoints').
  it.skipIf(usingPostgres())('writes each page of the links about once (SQLite)', { timeout: 120_000 }, async () => {
    const writtenBytes = () => Number(/^wchar: (\d+)/m.exec(fs.readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0);
    // Played in random order, as traffic plays them (not in the order the rows were stored).
    const played = [...tokens];
    for (let i = played.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [played[i], played[j]] = [played[j] as string, played[i] as string];
    }
    for (const token of played) t.deps.playLinks.counter.add(token);
    const before = writtenBytes();
    expect(await flushPlayCounts(t.deps)).toBe(LINKS);
    // The log, its checkpoint into the database file and whatever else the process writes meanwhile
    // come to 20-45 MB; the old order wrote about 450 MB.
    expect((writtenBytes() - before) / 2 ** 20).toBeLessThan(100);
  });

  it(
    'after an outage, keeps the unwritten counts, writes them once, and still does not stall',
    { timeout: 120_000 },
    async () => {
      const before = await totalStored();
      // Three flushes fail while counts keep piling up; the first fails part-way through.
      for (const token of tokens) t.deps.playLinks.counter.add(token);
      await expect(flushPlayCounts(withFailingUpdates(t.deps, 4))).rejects.toThrow('database unavailable');
      const writtenBeforeFailure = (await totalStored()) - before;
      expect(writtenBeforeFailure).toBe(3 * PLAY_COUNT_BATCH); // three statements got through
      for (let outage = 0; outage < 2; outage++) {
        for (const token of tokens) t.deps.playLinks.counter.add(token);
        await expect(flushPlayCounts(withFailingUpdates(t.deps, 1))).rejects.toThrow('database unavailable');
      }
      expect(await totalStored()).toBe(before + writtenBeforeFailure);

      const { result, maxStallMs } = await withLoopDelay(() => flushPlayCounts(t.deps));
      expect(result).toBe(3 * LINKS - writtenBeforeFailure);
      expect(await totalStored()).toBe(before + 3 * LINKS);
      expect(await flushPlayCounts(t.deps)).toBe(0);
      expect(maxStallMs).toBeLessThan(MAX_STALL_MS);
    },
  );
});
