/**
 * node-postgres, loaded only when the database is PostgreSQL: a process on SQLite never loads it
 * (resident memory: docs/performance.md; ARCHITECTURE.md, "Start and stop").
 */
import { createRequire } from 'node:module';

export function loadPg(): typeof import('pg') {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  // Counts come back as strings from pg for bigint; our integers fit in JS numbers.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
  return pg;
}
