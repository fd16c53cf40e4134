import { describe, expect, it } from 'vitest';
import { mapInSlices, timeSlices } from './time-slices.js';

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('timeSlices', () => {
  it('lets a timer due meanwhile run between slices of synchronous work', async () => {
    const pause = timeSlices(5);
    let timerRanAfterSlices = -1;
    setTimeout(() => {
      timerRanAfterSlices = slices;
    }, 0);
    let slices = 0;
    for (; slices < 10; slices++) {
      busy(2);
      await pause();
    }
    // Without the pause the timer would only run after all 20 ms of work.
    expect(timerRanAfterSlices).toBeGreaterThan(0);
    expect(timerRanAfterSlices).toBeLessThan(10);
  });

  it('does not yield before its slice is used up', async () => {
    const pause = timeSlices(1000);
    let ticked = false;
    setImmediate(() => {
      ticked = true;
    });
    for (let i = 0; i < 100; i++) await pause();
    expect(ticked).toBe(false);
  });
});

describe('mapInSlices', () => {
  it('maps in order with indexes', async () => {
    expect(await mapInSlices(['a', 'b', 'c'], (item, index) => `${index}${item}`)).toEqual(['0a', '1b', '2c']);
  });
});
