/**
 * Reading one setting from the environment object `loadConfig` is given (config.ts stays the
 * only reader of `process.env`): each reader answers the value or throws `ConfigError` naming
 * the variable and what it takes.
 */

/** Every setting that stops the process, at once: fixing them should take one restart, not one each. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string | string[]) {
    const list = typeof problems === 'string' ? [problems] : problems;
    super(list.length === 1 ? list[0] : `${list.length} settings need fixing:\n  - ${list.join('\n  - ')}`);
    this.problems = list;
  }
}

export type Env = Record<string, string | undefined>;

export function str(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

export function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function url(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

export function optional(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value === '' ? null : value;
}

const DURATION_UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90`, `90s`, `30m`, `12h` or `7d`; a bare number is seconds. */
export function duration(env: Env, name: string, fallback: string, minMs: number, maxMs: number): number {
  const raw = str(env, name, fallback);
  const match = /^(\d{1,9})([smhd]?)$/.exec(raw.trim());
  const ms = match ? Number(match[1]) * (DURATION_UNITS[match[2] || 's'] as number) : NaN;
  if (!(ms >= minMs && ms <= maxMs)) {
    throw new ConfigError(
      `${name} must be a duration like 30m, 12h or 7d, from ${minMs / 60_000} minutes to ${maxMs / 86_400_000} days, got "${raw}"`,
    );
  }
  return ms;
}
