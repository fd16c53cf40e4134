/**
 * Who may frame a course's pages. An LMS shows the tool inside a frame of its own page, and a
 * launch lands there: a learner on their record page. That page refuses framing for everyone
 * else (clickjacking), so a course remembers the sites its launches came from (the launch
 * post's Origin, the platform's return URLs) and its record pages name exactly those in
 * `frame-ancestors`. A few per course: the newest first, older ones dropped.
 */
import type { Deps } from '../../deps.js';
import { frameOriginsOfCollection } from './repo.js';

const MAX_ORIGINS_PER_COURSE = 5;

const parse = (stored: string | null): string[] => {
  if (stored === null) return [];
  const value = JSON.parse(stored) as unknown;
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
};

/** The course's stored origins with a launch's added (newest first), or null when nothing changes. */
export function mergeFrameOrigins(stored: string | null, launched: readonly string[]): string | null {
  const before = parse(stored);
  const after = [...new Set([...launched, ...before])].slice(0, MAX_ORIGINS_PER_COURSE);
  return after.length === before.length && after.every((origin, i) => origin === before[i]) ? null : JSON.stringify(after);
}

/** The sites that may frame the pages of a collection's people: none unless an LMS course is linked to it. */
export async function frameOriginsOf(deps: Pick<Deps, 'db'>, collectionId: string): Promise<string[]> {
  const rows = await frameOriginsOfCollection(deps.db.kysely, collectionId);
  return [...new Set(rows.flatMap((row) => parse(row.frame_origins)))];
}
