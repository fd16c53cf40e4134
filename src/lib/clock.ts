/** Time source, injected so tests can move time (retry schedules, expiries, TTLs). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds; sorts lexically in both databases. */
export const isoNow = (clock: Clock): string => clock.now().toISOString();

/**
 * Now, but strictly later than `previous` (ISO): an `updated_at` that always moves forward,
 * even for two changes within one millisecond.
 */
export const laterThan = (clock: Clock, previous: string): string =>
  new Date(Math.max(clock.now().getTime(), Date.parse(previous) + 1)).toISOString();

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
