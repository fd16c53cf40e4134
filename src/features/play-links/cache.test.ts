import { describe, expect, it } from 'vitest';
import { batchPlayCounts, KeyBatcher, PlayCounter, PlayLinkCache, type ResolvedPlayLink } from './cache.js';

const link = (token: string, userId = 'u1'): ResolvedPlayLink => ({
  token,
  userId,
  collectionId: 'c1',
  displayName: 'A',
  preferredName: null,
  pronouns: null,
  phoneticSpelling: null,
  guide: null,
  blobKey: 'recordings/u1/x.mp3',
  mimeType: 'audio/mpeg',
  byteSize: 1,
  durationMs: 1000,
  recordedAt: '2026-01-01T00:00:00.000Z',
  storedPlayCount: 0,
  allowIndexing: false,
  language: 'en',
  organisation: 'Class of 2027',
  logoUrl: null,
  brandStyleUrl: null,
  contentHash: 'h',
  audioLocation: '/a',
  audioLocationRefreshAt: null,
});

function setup(ttlMs = 1000, maxEntries = 100) {
  let now = 0;
  const cache = new PlayLinkCache({ ttlMs, maxEntries, now: () => now });
  return { cache, advance: (ms: number) => (now += ms) };
}

describe('PlayLinkCache', () => {
  it('serves from memory until the safety-net TTL ends, then loads again (an invalidation message was lost)', async () => {
    const { cache, advance } = setup(1000);
    let loads = 0;
    let current: ResolvedPlayLink | null = link('t1');
    const load = async () => {
      loads++;
      return current;
    };
    expect(await cache.get('t1', load)).toEqual(link('t1'));
    current = null; // deleted elsewhere; this process was not told
    advance(999);
    expect(await cache.get('t1', load)).not.toBeNull();
    advance(1);
    expect(await cache.get('t1', load)).toBeNull();
    expect(loads).toBe(2);
  });

  it('shares one load between concurrent misses', async () => {
    const { cache } = setup();
    let loads = 0;
    let release: () => void = () => undefined;
    const load = () => {
      loads++;
      return new Promise<ResolvedPlayLink>((resolve) => (release = () => resolve(link('t1'))));
    };
    // The first load is still running when the other two misses arrive.
    const misses = Promise.all([cache.get('t1', load), cache.get('t1', load), cache.get('t1', load)]);
    release();
    expect(await misses).toEqual([link('t1'), link('t1'), link('t1')]);
    expect(loads).toBe(1);
  });

  it('never stores a load that was running when an invalidation happened', async () => {
    const { cache } = setup();
    let release: () => void = () => undefined;
    const slow = cache.get(
      't1',
      () =>
        new Promise<ResolvedPlayLink>((resolve) => {
          release = () => resolve(link('t1'));
        }),
    );
    cache.invalidateUser('u1'); // e.g. the recording was deleted while the query ran
    release();
    await slow;
    expect(cache.peek('t1')).toBeUndefined();
  });

  it('drops a user’s tokens and all negative entries on invalidateUser', async () => {
    const { cache } = setup();
    await cache.get('t1', async () => link('t1', 'u1'));
    await cache.get('t2', async () => link('t2', 'u2'));
    await cache.get('gone', async () => null);
    cache.invalidateUser('u1');
    expect(cache.peek('t1')).toBeUndefined();
    expect(cache.peek('gone')).toBeUndefined();
    expect(cache.peek('t2')).not.toBeUndefined();
    cache.invalidateToken('t2');
    expect(cache.peek('t2')).toBeUndefined();
  });

  it('keeps the links in use and no more than maxEntries, however many tokens are played', async () => {
    const { cache } = setup(1000, 100);
    let loads = 0;
    const load = (token: string) => async () => {
      loads++;
      return link(token, `u-${token}`);
    };
    await cache.get('popular', load('popular'));
    for (let i = 0; i < 1000; i++) {
      await cache.get(`t${i}`, load(`t${i}`));
      await cache.get('popular', load('popular')); // played between the others: never the least recently used
      expect(cache.size).toBeLessThanOrEqual(100);
    }
    expect(cache.size).toBe(100);
    expect(loads).toBe(1001); // the popular link was loaded once, every other token once
    expect(cache.peek('t0')).toBeUndefined();
    expect(cache.peek('t999')).not.toBeUndefined();
  });

  it('loads a link again when its presigned audio URL is due for re-signing, however long entries live', async () => {
    const { cache, advance } = setup(3_600_000);
    let signed = 0;
    const load = async () => ({ ...link('t1'), audioLocation: `https://s3/x?sig=${++signed}`, audioLocationRefreshAt: 1800 });
    expect((await cache.get('t1', load))?.audioLocation).toBe('https://s3/x?sig=1');
    advance(1799);
    expect((await cache.get('t1', load))?.audioLocation).toBe('https://s3/x?sig=1');
    advance(1);
    expect((await cache.get('t1', load))?.audioLocation).toBe('https://s3/x?sig=2');
  });

  it('keeps at most maxEntries, and caches nothing with a TTL of 0', async () => {
    const { cache } = setup(1000, 2);
    for (const token of ['a', 'b', 'c']) await cache.get(token, async () => link(token));
    expect(cache.size).toBe(2);
    expect(cache.peek('a')).toBeUndefined();
    const off = setup(0).cache;
    await off.get('a', async () => link('a'));
    expect(off.size).toBe(0);
  });
});

it('adds flushed plays to cached entries so counts never go backwards', async () => {
  const { cache } = setup();
  await cache.get('t1', async () => link('t1'));
  cache.noteFlushed(['t1'], 3);
  expect(cache.peek('t1')?.storedPlayCount).toBe(3);
});

describe('PlayCounter', () => {
  it('adds, moves on rotation, hands over and restores counts', () => {
    const counter = new PlayCounter();
    counter.add('a');
    counter.add('a');
    counter.add('b', 3);
    counter.move('a', 'c');
    expect(counter.pendingFor('a')).toBe(0);
    expect(counter.pendingFor('c')).toBe(2);
    const taken = counter.take();
    expect([...taken]).toEqual([
      ['b', 3],
      ['c', 2],
    ]);
    expect(counter.pendingFor('b')).toBe(0);
    counter.add('b');
    counter.restore(taken);
    expect(counter.pendingFor('b')).toBe(4);
  });
});

describe('batchPlayCounts', () => {
  it('groups tokens by plays into batches of at most the given size, keeping every count', () => {
    const counts = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 1],
      ['d', 1],
      ['e', 2],
    ]);
    expect([...batchPlayCounts(counts, 2)]).toEqual([
      { plays: 1, tokens: ['a', 'c'] },
      { plays: 2, tokens: ['b', 'e'] },
      { plays: 1, tokens: ['d'] },
    ]);
    expect([...batchPlayCounts(new Map(), 500)]).toEqual([]);
  });

  it('is linear: a long tail of 200,000 links played once costs about what copying them costs', () => {
    const counts = new Map(Array.from({ length: 200_000 }, (_, i) => [`t${i}`, 1] as const));
    // Compared with a linear baseline measured in the same run, so machine load cancels out: a
    // quadratic grouping (copying the list per token) would be thousands of times the baseline.
    const timed = (work: () => unknown) => {
      const started = performance.now();
      work();
      return performance.now() - started;
    };
    timed(() => [...batchPlayCounts(counts, 500)]); // warm up the JIT
    const baseline = Math.max(
      timed(() => [...new Map(counts)].map(([token]) => [token])),
      1,
    );
    let batches: ReturnType<typeof batchPlayCounts> extends Iterable<infer B> ? B[] : never = [];
    const grouping = timed(() => (batches = [...batchPlayCounts(counts, 500)]));
    expect(grouping / baseline).toBeLessThan(50);
    expect(batches).toHaveLength(400);
    expect(batches.every((b) => b.plays === 1 && b.tokens.length === 500)).toBe(true);
  });
});

describe('KeyBatcher', () => {
  it('loads keys asked for in one turn with one call, in chunks, and passes errors to every waiter', async () => {
    const calls: string[][] = [];
    const batcher = new KeyBatcher<string>(async (keys) => {
      calls.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.toUpperCase()]));
    }, 2);
    const results = await Promise.all(['a', 'b', 'a', 'missing'].map((k) => batcher.load(k)));
    expect(results).toEqual(['A', 'B', 'A', null]);
    expect(calls).toEqual([['a', 'b'], ['missing']]);

    const failing = new KeyBatcher<string>(async () => {
      throw new Error('database down');
    });
    const outcomes = await Promise.allSettled([failing.load('x'), failing.load('y')]);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
  });
});
