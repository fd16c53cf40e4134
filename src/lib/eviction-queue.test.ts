import { describe, expect, it } from 'vitest';
import { EvictionQueue } from './eviction-queue.js';

describe('EvictionQueue', () => {
  it('hands out the oldest entry still in the map, skipping those that left or were replaced', () => {
    const map = new Map<string, { key: string }>();
    const queue = new EvictionQueue<{ key: string }>((item) => map.get(item.key) === item, 10);
    for (const key of ['a', 'b', 'c', 'd']) {
      const item = { key };
      map.set(key, item);
      queue.push(item);
    }
    map.delete('a'); // invalidated
    const newB = { key: 'b' };
    map.set('b', newB); // replaced: its first place in the queue is stale
    queue.push(newB);
    expect(queue.shift()?.key).toBe('c');
    expect(queue.shift()?.key).toBe('d');
    expect(queue.shift()).toBe(newB);
    expect(queue.shift()).toBeUndefined();
  });

  it('keeps its memory bounded when entries keep leaving the map without being evicted', () => {
    const map = new Map<number, { key: number }>();
    const queue = new EvictionQueue<{ key: number }>((item) => map.get(item.key) === item, 100);
    for (let key = 0; key < 100_000; key++) {
      const item = { key };
      map.set(key, item);
      queue.push(item);
      map.delete(key - 50); // only the last 50 stay in the map
    }
    const queued = (queue as unknown as { items: unknown[]; head: number }).items.length;
    expect(queued).toBeLessThanOrEqual(2 * 100 + 1024 + 1);
    expect(queue.shift()?.key).toBe(100_000 - 50);
  });
});
